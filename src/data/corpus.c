/* corpus.c — a seeded generator of simple English sentences.
 *
 * The words come from the lexicon (corpus_lexicon.h). Reading order: the
 * output buffer, random choices, noun phrases, one function per kind of
 * sentence, and the top level that picks kinds by weight. */
#include "data/corpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomic_file.h"
#include "base/rng.h"
#include "data/corpus_lexicon.h"

/* ---- output --------------------------------------------------------------------- */

typedef enum { PAST, PRESENT } Tense;

/* The generator: its random stream and the text written so far. */
typedef struct {
    Rng rng;
    char *text;       /* NUL-terminated output, grows */
    size_t len, cap;
    int failed;       /* 1 after an allocation failure */
    int line_empty;   /* 1 at the start of a line: the next word gets no space */
} Gen;

/* Append the bytes of s to the output (sets g->failed when out of memory). */
static void append(Gen *g, const char *s)
{
    size_t n = strlen(s);
    if (g->failed) return;
    if (g->len + n + 1 > g->cap) {
        size_t cap = g->cap ? g->cap : 4096;
        while (g->len + n + 1 > cap) cap *= 2;
        char *bigger = realloc(g->text, cap);
        if (!bigger) {
            g->failed = 1;
            return;
        }
        g->text = bigger;
        g->cap = cap;
    }
    memcpy(g->text + g->len, s, n + 1);
    g->len += n;
}

/* Write one or more words (a phrase like "in the rain"), space-separated. */
static void put(Gen *g, const char *words)
{
    if (!g->line_empty) append(g, " ");
    append(g, words);
    g->line_empty = 0;
}

/* End the current sentence with its punctuation mark and a newline. */
static void end_sentence(Gen *g, const char *mark)
{
    put(g, mark);
    append(g, "\n");
    g->line_empty = 1;
}

/* ---- random choices --------------------------------------------------------------- */

/* Uniform index in [0, n). */
static int pick_index(Gen *g, int n)
{
    return (int)rng_below(&g->rng, (uint32_t)n);
}

/* 1 with probability percent / 100. */
static int chance(Gen *g, int percent)
{
    return (int)rng_below(&g->rng, 100) < percent;
}

/* A uniform entry of a NULL-terminated list of strings. */
static const char *pick_from_list(Gen *g, const char *const *list)
{
    int n = 0;
    while (list[n]) n++;
    return list[pick_index(g, n)];
}

/* A uniform thing among those with any bit of `kinds`. */
static const Thing *pick_thing(Gen *g, int kinds)
{
    int n = 0;
    for (int i = 0; i < N_THINGS; i++) n += (THINGS[i].kinds & kinds) != 0;
    int k = pick_index(g, n);
    for (int i = 0; i < N_THINGS; i++)
        if ((THINGS[i].kinds & kinds) && k-- == 0) return &THINGS[i];
    return &THINGS[0]; /* not reached: every kind has things */
}

/* The PERSONS entry of a job name (every character's job is one). */
static const PersonNoun *find_person(const char *singular)
{
    for (int i = 0; i < N_PERSONS; i++)
        if (strcmp(PERSONS[i].singular, singular) == 0) return &PERSONS[i];
    return &PERSONS[0];
}

/* "a" or "an" before the given word (no words of this lexicon start with a
 * silent h or a "yoo" u, so the first letter decides). */
static const char *article_for(const char *word)
{
    return strchr("aeiou", word[0]) ? "an" : "a";
}

/* The verb form for a tense and a subject that does (1) or does not (0)
 * take the third-person singular -s. */
static const char *verb_form(const Verb *v, Tense tense, int third_singular)
{
    if (tense == PAST) return v->past;
    return third_singular ? v->third : v->base;
}

/* An optional time phrase that agrees with the tense (percent: how often). */
static void maybe_time(Gen *g, Tense tense, int percent)
{
    if (!chance(g, percent)) return;
    if (chance(g, 60)) {
        if (tense == PAST) put(g, TIMES_PAST[pick_index(g, N_TIMES_PAST)]);
        else put(g, TIMES_PRESENT[pick_index(g, N_TIMES_PRESENT)]);
    } else {
        put(g, TIMES_ANY[pick_index(g, N_TIMES_ANY)]);
    }
}

/* ---- noun phrases -------------------------------------------------------------------- */

/* The subject of a clause: a named character or "the [adjective] noun(s)". */
typedef struct {
    const Character *who;       /* non-NULL: a named character */
    const PersonNoun *noun;     /* otherwise a person noun */
    const char *adjective;      /* NULL or an adjective before the noun */
    int plural;
    Gender gender;
} Subject;

/* A random subject: a character 45% of the time, else a (plural 30%) noun. */
static Subject pick_subject(Gen *g)
{
    Subject s = {0};
    if (chance(g, 45)) {
        s.who = &CHARACTERS[pick_index(g, N_CHARACTERS)];
        s.gender = s.who->gender;
        return s;
    }
    s.noun = &PERSONS[pick_index(g, N_PERSONS)];
    s.gender = s.noun->gender;
    s.plural = chance(g, 30);
    if (chance(g, 40)) s.adjective = PERSON_ADJECTIVES[pick_index(g, N_PERSON_ADJECTIVES)];
    return s;
}

/* Write the subject: "mara" or "the old sailors". */
static void put_subject(Gen *g, const Subject *s)
{
    if (s->who) {
        put(g, s->who->name);
        return;
    }
    put(g, "the");
    if (s->adjective) put(g, s->adjective);
    put(g, s->plural ? s->noun->plural : s->noun->singular);
}

/* 1 if the subject noun phrase takes "walks" / "is" / "was". */
static int subject_is_singular(const Subject *s)
{
    return !s->plural;
}

/* Pronoun standing for the subject (she / he / they) and whether that
 * pronoun takes singular verbs (they does not). */
static const char *subject_pronoun(const Subject *s, int *third_singular)
{
    if (s->plural || s->gender == NEUTER) {
        *third_singular = 0;
        return "they";
    }
    *third_singular = 1;
    return s->gender == FEMALE ? "she" : "he";
}

/* Possessive that agrees with the subject: her / his / their. */
static const char *subject_possessive(const Subject *s)
{
    if (s->plural || s->gender == NEUTER) return "their";
    return s->gender == FEMALE ? "her" : "his";
}

/* "was" / "were" / "is" / "are". */
static const char *be_form(Tense tense, int singular)
{
    if (tense == PAST) return singular ? "was" : "were";
    return singular ? "is" : "are";
}

/* Write an object noun phrase for a thing: "the red book", "an old map",
 * "three ripe apples" or (with a subject) "her new coat". */
static void put_object(Gen *g, const Thing *t, const Subject *owner)
{
    const char *adjective = chance(g, 50) ? pick_from_list(g, t->adjectives) : NULL;
    const char *noun = t->singular;
    int form = pick_index(g, owner ? 4 : 3);
    if (form == 0) {
        put(g, "the");
    } else if (form == 1) {
        put(g, article_for(adjective ? adjective : noun));
    } else if (form == 2) {
        put(g, NUMBERS[pick_index(g, N_NUMBERS)]);
        noun = t->plural;
    } else {
        put(g, subject_possessive(owner));
    }
    if (adjective) put(g, adjective);
    put(g, noun);
}

/* Write "her brother", "his aunt", "their cousin" for the subject. */
static void put_relative(Gen *g, const Subject *s)
{
    put(g, subject_possessive(s));
    put(g, RELATIVES[pick_index(g, N_RELATIVES)]);
}

/* Write "the [adjective] animal(s)"; returns the animal, *plural set. */
static const Animal *put_animal(Gen *g, int *plural)
{
    const Animal *a = &ANIMALS[pick_index(g, N_ANIMALS)];
    *plural = chance(g, 30);
    put(g, "the");
    if (chance(g, 40)) put(g, ANIMAL_ADJECTIVES[pick_index(g, N_ANIMAL_ADJECTIVES)]);
    put(g, *plural ? a->plural : a->singular);
    return a;
}

/* A random tense: past 60%, present 40%. */
static Tense pick_tense(Gen *g)
{
    return chance(g, 60) ? PAST : PRESENT;
}

/* The workplace of a subject, or NULL ("mara" -> "harbor"). */
static const char *subject_workplace(const Subject *s)
{
    if (s->who) return find_person(s->who->job)->workplace;
    return s->noun->workplace;
}

/* ---- clauses (no final punctuation) ------------------------------------------------------ */

/* "the old sailor walked to the river before dawn" */
static void clause_motion(Gen *g, Tense tense)
{
    Subject s = pick_subject(g);
    put_subject(g, &s);
    put(g, verb_form(&MOTION_VERBS[pick_index(g, N_MOTION_VERBS)], tense,
                     subject_is_singular(&s)));
    const char *workplace = subject_workplace(&s);
    if (workplace && chance(g, 40)) {
        put(g, "to the");
        put(g, workplace);
    } else {
        const Place *p = &PLACES[pick_index(g, N_PLACES)];
        int n_preps = 0;
        while (n_preps < 4 && p->preps[n_preps]) n_preps++;
        put(g, p->preps[pick_index(g, n_preps)]);
        put(g, "the");
        put(g, p->name);
    }
    maybe_time(g, tense, 50);
}

/* "mara gave the red book to her brother" / "tom gives his friend a cake" */
static void clause_give(Gen *g, Tense tense)
{
    Subject s = pick_subject(g);
    const Thing *t = pick_thing(g, GIFT);
    put_subject(g, &s);
    put(g, verb_form(&VERB_GIVE, tense, subject_is_singular(&s)));
    int form = pick_index(g, 3);
    if (form == 0) {
        put_relative(g, &s);
        put_object(g, t, NULL);
    } else {
        put_object(g, t, NULL);
        put(g, "to");
        if (form == 1) {
            put_relative(g, &s);
        } else if (s.who) {
            /* characters give most often to their friend (the pair partner) */
            int me = (int)(s.who - CHARACTERS);
            int friend = chance(g, 60) ? (me ^ 1) : pick_index(g, N_CHARACTERS);
            if (friend == me) friend = me ^ 1;
            put(g, CHARACTERS[friend].name);
        } else {
            put(g, "the");
            put(g, PERSONS[pick_index(g, N_PERSONS)].singular);
        }
    }
    maybe_time(g, tense, 30);
}

/* "the fishermen mend their old nets at dusk" / "ada found a golden key in the forest" */
static void clause_transitive(Gen *g, Tense tense)
{
    Subject s = pick_subject(g);
    const TransitiveVerb *v = &TRANSITIVE_VERBS[pick_index(g, N_TRANSITIVE_VERBS)];
    put_subject(g, &s);
    put(g, verb_form(&v->verb, tense, subject_is_singular(&s)));
    put_object(g, pick_thing(g, v->object_kind), &s);
    if (chance(g, 30)) {
        put(g, "in the");
        put(g, INSIDE_PLACES[pick_index(g, N_INSIDE_PLACES)]);
    } else {
        maybe_time(g, tense, 40);
    }
}

/* "the children were tired after dinner" */
static void clause_state(Gen *g, Tense tense)
{
    Subject s = pick_subject(g);
    put_subject(g, &s);
    put(g, be_form(tense, subject_is_singular(&s)));
    put(g, STATES[pick_index(g, N_STATES)]);
    maybe_time(g, tense, 40);
}

/* "mara was hungry , so she ate a ripe pear" */
static void clause_need(Gen *g, Tense tense)
{
    Subject s = pick_subject(g);
    int need = pick_index(g, N_NEEDS);
    put_subject(g, &s);
    put(g, be_form(tense, subject_is_singular(&s)));
    put(g, NEEDS[need]);
    put(g, ", so");
    int third_singular;
    put(g, subject_pronoun(&s, &third_singular));
    switch (need) {
    case NEED_HUNGRY:
        put(g, verb_form(&VERB_EAT, tense, third_singular));
        put_object(g, pick_thing(g, EDIBLE), &s);
        break;
    case NEED_THIRSTY:
        put(g, verb_form(&VERB_DRINK, tense, third_singular));
        put(g, "some");
        put(g, DRINKS[pick_index(g, N_DRINKS)]);
        break;
    case NEED_COLD:
        put(g, verb_form(&VERB_PUT_ON, tense, third_singular));
        put(g, subject_possessive(&s));
        put(g, chance(g, 50) ? "coat" : "scarf");
        break;
    case NEED_TIRED:
        put(g, verb_form(&VERB_GO, tense, third_singular));
        put(g, "to bed early");
        break;
    case NEED_BORED:
        put(g, verb_form(&VERB_READ, tense, third_singular));
        put_object(g, pick_thing(g, READABLE), &s);
        break;
    default: /* NEED_LONELY */
        put(g, verb_form(&VERB_VISIT, tense, third_singular));
        put_relative(g, &s);
        break;
    }
}

/* "the old dog barked at the stranger" / "the cats chase the mice" */
static void clause_animal(Gen *g, Tense tense)
{
    int plural;
    const Animal *a = put_animal(g, &plural);
    if (a->chases && chance(g, 40)) {
        put(g, verb_form(&VERB_CHASE, tense, !plural));
        put(g, "the");
        put(g, a->chases);
        maybe_time(g, tense, 30);
        return;
    }
    put(g, verb_form(&a->sound, tense, !plural));
    int where = pick_index(g, 3);
    if (where == 0) {
        put(g, "at the");
        put(g, PERSONS[pick_index(g, N_PERSONS)].singular);
    } else if (where == 1) {
        put(g, "in the");
        put(g, INSIDE_PLACES[pick_index(g, N_INSIDE_PLACES)]);
    }
    maybe_time(g, tense, 50);
}

/* A fact about one of the recurring people, always the same for that person:
 * "mara lives in oakridge", "tom is a baker", "ada works at the hospital". */
static void clause_fact(Gen *g)
{
    int me = pick_index(g, N_CHARACTERS);
    const Character *c = &CHARACTERS[me];
    const Subject s = {.who = c, .gender = c->gender};
    put(g, c->name);
    switch (pick_index(g, 6)) {
    case 0:
        put(g, verb_form(&VERB_LIVE, PRESENT, 1));
        put(g, "in");
        put(g, TOWNS[c->town].name);
        break;
    case 1:
        put(g, "is");
        put(g, article_for(c->job));
        put(g, c->job);
        break;
    case 2:
        put(g, verb_form(&VERB_WORK, PRESENT, 1));
        put(g, "at the");
        put(g, find_person(c->job)->workplace);
        break;
    case 3:
        put(g, "has");
        put(g, article_for(c->pet_color));
        put(g, c->pet_color);
        put(g, c->pet);
        break;
    case 4:
        put(g, "and");
        put(g, CHARACTERS[me ^ 1].name);
        put(g, "are friends");
        break;
    default: {
        Tense tense = pick_tense(g);
        put(g, verb_form(&VERB_FEED, tense, 1));
        put(g, subject_possessive(&s));
        put(g, c->pet);
        maybe_time(g, tense, 70);
        break;
    }
    }
}

/* "nora said that the river was cold" — a character reports a past clause. */
static void clause_speech(Gen *g)
{
    const Character *c = &CHARACTERS[pick_index(g, N_CHARACTERS)];
    const Subject s = {.who = c, .gender = c->gender};
    put(g, c->name);
    if (chance(g, 50)) {
        put(g, verb_form(&VERB_SAY, PAST, 1));
    } else {
        put(g, verb_form(&VERB_TELL, PAST, 1));
        put_relative(g, &s);
    }
    put(g, "that");
    switch (pick_index(g, 3)) {
    case 0: clause_motion(g, PAST); break;
    case 1: clause_state(g, PAST); break;
    default: clause_transitive(g, PAST); break;
    }
}

/* Questions: "did mara find the key", "does the baker live in millbrook",
 * "where are the red boxes", "why was the king angry". */
static void clause_question(Gen *g)
{
    int kind = pick_index(g, 4);
    if (kind == 0) {
        Tense tense = pick_tense(g);
        Subject s = pick_subject(g);
        const TransitiveVerb *v = &TRANSITIVE_VERBS[pick_index(g, N_TRANSITIVE_VERBS)];
        put(g, tense == PAST ? "did" : subject_is_singular(&s) ? "does" : "do");
        put_subject(g, &s);
        put(g, v->verb.base);
        put_object(g, pick_thing(g, v->object_kind), &s);
    } else if (kind == 1) {
        const Character *c = &CHARACTERS[pick_index(g, N_CHARACTERS)];
        put(g, "does");
        put(g, c->name);
        put(g, "live in");
        put(g, TOWNS[c->town].name);
    } else if (kind == 2) {
        const Thing *t = &THINGS[pick_index(g, N_THINGS)];
        int plural = chance(g, 40);
        put(g, plural ? "where are the" : "where is the");
        if (chance(g, 40)) put(g, pick_from_list(g, t->adjectives));
        put(g, plural ? t->plural : t->singular);
    } else {
        Tense tense = pick_tense(g);
        Subject s = pick_subject(g);
        put(g, "why");
        put(g, be_form(tense, subject_is_singular(&s)));
        put_subject(g, &s);
        put(g, STATES[pick_index(g, N_STATES)]);
    }
}

/* "it often rains in greywater" / "the wind blew in redhill all night" —
 * each town has its own weather. */
static void clause_weather(Gen *g, Tense tense)
{
    const Town *town = &TOWNS[pick_index(g, N_TOWNS)];
    const Weather *w = &WEATHERS[town->weather];
    put(g, w->subject);
    if (tense == PRESENT) put(g, "often");
    put(g, verb_form(&w->verb, tense, 1));
    put(g, "in");
    put(g, town->name);
    if (tense == PAST) put(g, (w->daytime_only || chance(g, 50)) ? "all day" : "all night");
}

/* "the baker went to the market and bought three fresh eggs" */
static void clause_shopping(Gen *g, Tense tense)
{
    const Shop *shop = &SHOPS[pick_index(g, N_SHOPS)];
    Subject s = pick_subject(g);
    put_subject(g, &s);
    put(g, verb_form(&VERB_GO, tense, subject_is_singular(&s)));
    put(g, "to the");
    put(g, shop->place);
    put(g, "and");
    put(g, verb_form(&shop->verb, tense, subject_is_singular(&s)));
    put_object(g, pick_thing(g, shop->kind), NULL);
}

/* ---- sentences ------------------------------------------------------------------------- */

/* Write one sentence with its end mark and newline; kinds chosen by weight. */
static void write_sentence(Gen *g)
{
    int r = pick_index(g, 100);
    if (r < 16) clause_motion(g, pick_tense(g));
    else if (r < 28) clause_give(g, pick_tense(g));
    else if (r < 44) clause_transitive(g, pick_tense(g));
    else if (r < 52) clause_state(g, pick_tense(g));
    else if (r < 62) clause_need(g, pick_tense(g));
    else if (r < 70) clause_animal(g, pick_tense(g));
    else if (r < 80) clause_fact(g);
    else if (r < 86) clause_speech(g);
    else if (r < 92) {
        clause_question(g);
        end_sentence(g, "?");
        return;
    } else if (r < 96) clause_weather(g, pick_tense(g));
    else clause_shopping(g, pick_tense(g));
    end_sentence(g, ".");
}

char *corpus_builtin_text(int n_sentences, unsigned long long seed, size_t *len)
{
    if (len) *len = 0;
    if (n_sentences < 1) return NULL;
    Gen g = {0};
    g.line_empty = 1;
    rng_seed(&g.rng, (uint64_t)seed);
    for (int i = 0; i < n_sentences && !g.failed; i++) write_sentence(&g);
    if (g.failed) {
        free(g.text);
        return NULL;
    }
    if (len) *len = g.len;
    return g.text;
}

int corpus_builtin_write(const char *path, int n_sentences, unsigned long long seed, SrError *err)
{
    if (n_sentences < 1)
        return sr_fail(err, "%s: number of sentences must be >= 1 (got %d)", path, n_sentences);
    size_t len;
    char *text = corpus_builtin_text(n_sentences, seed, &len);
    if (!text) return sr_fail(err, "%s: out of memory generating %d sentences", path, n_sentences);

    int rc = write_bytes_atomic(path, text, len, err);
    free(text);
    return rc;
}
