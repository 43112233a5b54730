/* corpus_lexicon.h — the words of the built-in English corpus (data/corpus.c).
 *
 * Tables of words with the facts that tie them together: which verbs take
 * which things, where people work, what animals chase, which town has which
 * weather, who the recurring characters are. Only the sentence generator of
 * corpus.c reads them; N_X is the number of entries of table X. */
#ifndef SEQREP_CORPUS_LEXICON_H
#define SEQREP_CORPUS_LEXICON_H

/* The gender of a person noun or character: "she", "he" or "they". */
typedef enum { FEMALE, MALE, NEUTER } Gender;

/* A verb's three forms: "walk", "walks", "walked". */
typedef struct {
    const char *base, *third, *past;
} Verb;

/* Kinds of things, as bits: which verbs a thing can be the object of. */
enum {
    EDIBLE = 1 << 0,    /* eat */
    READABLE = 1 << 1,  /* read, borrow */
    FINDABLE = 1 << 2,  /* find, lose */
    CARRYABLE = 1 << 3, /* carry */
    BUILDABLE = 1 << 4, /* build */
    PAINTABLE = 1 << 5, /* paint */
    MENDABLE = 1 << 6,  /* mend */
    GIFT = 1 << 7,      /* give */
    BAKED = 1 << 8,     /* sold at the bakery */
    PRODUCE = 1 << 9    /* sold at the market */
};

/* A thing: its two forms, its kinds and the adjectives that fit it. */
typedef struct {
    const char *singular, *plural;
    int kinds;                       /* bits of the enum above */
    const char *const *adjectives;   /* NULL-terminated list that fits it */
} Thing;

/* Transitive verbs and the kind of thing each takes as its object. */
typedef struct {
    Verb verb;
    int object_kind;
} TransitiveVerb;

/* People named by a noun; working people have a workplace. */
typedef struct {
    const char *singular, *plural;
    Gender gender;
    const char *workplace; /* NULL when the noun is not a job */
} PersonNoun;

/* Animals, the sound each makes, and what it chases (NULL: nothing). */
typedef struct {
    const char *singular, *plural;
    Verb sound;
    const char *chases;
} Animal;

/* Places and the prepositions that go with moving toward them. */
typedef struct {
    const char *name;
    const char *preps[4]; /* NULL-terminated */
} Place;

/* Weather: what happens, and with which subject ("it rains", "the wind blows"). */
typedef struct {
    const char *subject;
    Verb verb;
    int daytime_only; /* 1: "all day" but never "all night" */
} Weather;

/* Towns and their usual weather (index into WEATHERS). */
typedef struct {
    const char *name;
    int weather;
} Town;

/* The recurring people: home town (index into TOWNS), job (a PERSONS noun),
 * pet and its colour. Friends come in pairs: entries 2k and 2k+1. */
typedef struct {
    const char *name;
    Gender gender;
    int town;
    const char *job;
    const char *pet;
    const char *pet_color;
} Character;

/* Shops: what one does there and the kinds of things found there. */
typedef struct {
    const char *place;
    Verb verb;
    int kind;
} Shop;

/* The needs that lead to "so she ..." (index into NEEDS). */
enum { NEED_HUNGRY, NEED_THIRSTY, NEED_COLD, NEED_TIRED, NEED_BORED, NEED_LONELY, N_NEEDS };

/* Things (objects of transitive verbs, gifts, shop goods) and the verbs. */
extern const Thing THINGS[];
extern const int N_THINGS;
extern const TransitiveVerb TRANSITIVE_VERBS[];
extern const int N_TRANSITIVE_VERBS;
extern const char *const DRINKS[];
extern const int N_DRINKS;

/* People: nouns, their adjectives, relatives. */
extern const PersonNoun PERSONS[];
extern const int N_PERSONS;
extern const char *const PERSON_ADJECTIVES[];
extern const int N_PERSON_ADJECTIVES;
extern const char *const RELATIVES[];
extern const int N_RELATIVES;

/* Animals and their adjectives. */
extern const Animal ANIMALS[];
extern const int N_ANIMALS;
extern const char *const ANIMAL_ADJECTIVES[];
extern const int N_ANIMAL_ADJECTIVES;

/* Places, the ones "in the ..." fits, and the verbs of moving there. */
extern const Place PLACES[];
extern const int N_PLACES;
extern const char *const INSIDE_PLACES[];
extern const int N_INSIDE_PLACES;
extern const Verb MOTION_VERBS[];
extern const int N_MOTION_VERBS;

/* Weather (indexed by Town.weather), towns and the recurring characters. */
extern const Weather WEATHERS[];
extern const Town TOWNS[];
extern const int N_TOWNS;
extern const Character CHARACTERS[];
extern const int N_CHARACTERS;

/* Time phrases for either tense, the past and the present. */
extern const char *const TIMES_ANY[];
extern const int N_TIMES_ANY;
extern const char *const TIMES_PAST[];
extern const int N_TIMES_PAST;
extern const char *const TIMES_PRESENT[];
extern const int N_TIMES_PRESENT;

/* States ("X was tired"), needs, shops. */
extern const char *const STATES[];
extern const int N_STATES;
extern const char *const NEEDS[N_NEEDS];
extern const Shop SHOPS[];
extern const int N_SHOPS;

/* The verbs particular sentences are built on. */
extern const Verb VERB_GO;
extern const Verb VERB_EAT;
extern const Verb VERB_READ;
extern const Verb VERB_PUT_ON;
extern const Verb VERB_GIVE;
extern const Verb VERB_DRINK;
extern const Verb VERB_VISIT;
extern const Verb VERB_CHASE;
extern const Verb VERB_LIVE;
extern const Verb VERB_WORK;
extern const Verb VERB_FEED;
extern const Verb VERB_SAY;
extern const Verb VERB_TELL;

/* Number words for "two apples" .. "five apples". */
extern const char *const NUMBERS[];
extern const int N_NUMBERS;

#endif
