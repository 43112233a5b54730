/* corpus_lexicon.c — the word tables of the built-in corpus (see
 * corpus_lexicon.h for what ties them together). */
#include "data/corpus_lexicon.h"

#include <stddef.h>

/* Adjectives that fit fruit, fresh food, baked goods and objects (NULL-terminated). */
static const char *const ADJ_FRUIT[] = {"ripe", "fresh", "sweet", "small", "big", "green", NULL};
static const char *const ADJ_FRESH[] = {"fresh", "small", "big", NULL};
static const char *const ADJ_BAKED[] = {"fresh", "sweet", "warm", "small", "big", NULL};
static const char *const ADJ_OBJECT[] = {"old", "new", "small", "big", "red", "blue", "green",
                                         "brown", "black", "white", "yellow", "heavy", "little",
                                         "strange", "dusty", NULL};

const Thing THINGS[] = {
    {"apple", "apples", EDIBLE | GIFT | PRODUCE, ADJ_FRUIT},
    {"pear", "pears", EDIBLE | PRODUCE, ADJ_FRUIT},
    {"plum", "plums", EDIBLE | PRODUCE, ADJ_FRUIT},
    {"orange", "oranges", EDIBLE | GIFT | PRODUCE, ADJ_FRUIT},
    {"egg", "eggs", EDIBLE | PRODUCE, ADJ_FRESH},
    {"onion", "onions", EDIBLE | PRODUCE, ADJ_FRESH},
    {"carrot", "carrots", EDIBLE | PRODUCE, ADJ_FRESH},
    {"fish", "fish", EDIBLE | PRODUCE, ADJ_FRESH},
    {"cake", "cakes", EDIBLE | GIFT | BAKED, ADJ_BAKED},
    {"pie", "pies", EDIBLE | BAKED, ADJ_BAKED},
    {"biscuit", "biscuits", EDIBLE | BAKED, ADJ_BAKED},
    {"loaf", "loaves", EDIBLE | BAKED, ADJ_BAKED},
    {"book", "books", READABLE | GIFT | FINDABLE | CARRYABLE, ADJ_OBJECT},
    {"letter", "letters", READABLE | GIFT | FINDABLE, ADJ_OBJECT},
    {"map", "maps", READABLE | GIFT | FINDABLE, ADJ_OBJECT},
    {"note", "notes", READABLE | FINDABLE, ADJ_OBJECT},
    {"poem", "poems", READABLE | GIFT, ADJ_OBJECT},
    {"key", "keys", FINDABLE | GIFT, ADJ_OBJECT},
    {"coin", "coins", FINDABLE | GIFT, ADJ_OBJECT},
    {"ring", "rings", FINDABLE | GIFT, ADJ_OBJECT},
    {"feather", "feathers", FINDABLE | GIFT, ADJ_OBJECT},
    {"shell", "shells", FINDABLE | GIFT, ADJ_OBJECT},
    {"stone", "stones", FINDABLE | CARRYABLE, ADJ_OBJECT},
    {"knife", "knives", FINDABLE | GIFT, ADJ_OBJECT},
    {"button", "buttons", FINDABLE, ADJ_OBJECT},
    {"glove", "gloves", FINDABLE | MENDABLE | GIFT, ADJ_OBJECT},
    {"hat", "hats", FINDABLE | MENDABLE | GIFT, ADJ_OBJECT},
    {"scarf", "scarves", FINDABLE | MENDABLE | GIFT, ADJ_OBJECT},
    {"coat", "coats", MENDABLE | GIFT, ADJ_OBJECT},
    {"boot", "boots", MENDABLE, ADJ_OBJECT},
    {"basket", "baskets", CARRYABLE | MENDABLE | GIFT, ADJ_OBJECT},
    {"box", "boxes", CARRYABLE | BUILDABLE | PAINTABLE | GIFT, ADJ_OBJECT},
    {"bucket", "buckets", CARRYABLE, ADJ_OBJECT},
    {"lamp", "lamps", CARRYABLE | FINDABLE | GIFT, ADJ_OBJECT},
    {"candle", "candles", CARRYABLE | GIFT, ADJ_OBJECT},
    {"sack", "sacks", CARRYABLE | MENDABLE, ADJ_OBJECT},
    {"ladder", "ladders", CARRYABLE | BUILDABLE, ADJ_OBJECT},
    {"chair", "chairs", CARRYABLE | BUILDABLE | PAINTABLE | MENDABLE, ADJ_OBJECT},
    {"table", "tables", BUILDABLE | PAINTABLE | MENDABLE, ADJ_OBJECT},
    {"boat", "boats", BUILDABLE | PAINTABLE | MENDABLE, ADJ_OBJECT},
    {"house", "houses", BUILDABLE | PAINTABLE, ADJ_OBJECT},
    {"wall", "walls", BUILDABLE | PAINTABLE | MENDABLE, ADJ_OBJECT},
    {"fence", "fences", BUILDABLE | PAINTABLE | MENDABLE, ADJ_OBJECT},
    {"cart", "carts", BUILDABLE | PAINTABLE | MENDABLE, ADJ_OBJECT},
    {"door", "doors", PAINTABLE | MENDABLE, ADJ_OBJECT},
    {"roof", "roofs", MENDABLE, ADJ_OBJECT},
    {"net", "nets", MENDABLE | CARRYABLE, ADJ_OBJECT},
    {"sail", "sails", MENDABLE, ADJ_OBJECT},
    {"picture", "pictures", PAINTABLE | GIFT, ADJ_OBJECT},
    {"sign", "signs", PAINTABLE, ADJ_OBJECT},
    {"flower", "flowers", GIFT, ADJ_OBJECT},
};
const int N_THINGS = (int)(sizeof THINGS / sizeof THINGS[0]);

const TransitiveVerb TRANSITIVE_VERBS[] = {
    {{"eat", "eats", "ate"}, EDIBLE},
    {{"read", "reads", "read"}, READABLE},
    {{"find", "finds", "found"}, FINDABLE},
    {{"lose", "loses", "lost"}, FINDABLE},
    {{"carry", "carries", "carried"}, CARRYABLE},
    {{"build", "builds", "built"}, BUILDABLE},
    {{"paint", "paints", "painted"}, PAINTABLE},
    {{"mend", "mends", "mended"}, MENDABLE},
};
const int N_TRANSITIVE_VERBS = (int)(sizeof TRANSITIVE_VERBS / sizeof TRANSITIVE_VERBS[0]);

const char *const DRINKS[] = {"water", "milk", "tea", "cider", "juice"};
const int N_DRINKS = (int)(sizeof DRINKS / sizeof DRINKS[0]);

const PersonNoun PERSONS[] = {
    {"sailor", "sailors", NEUTER, "harbor"},
    {"baker", "bakers", NEUTER, "bakery"},
    {"teacher", "teachers", NEUTER, "school"},
    {"farmer", "farmers", NEUTER, "farm"},
    {"doctor", "doctors", NEUTER, "hospital"},
    {"miller", "millers", NEUTER, "mill"},
    {"painter", "painters", NEUTER, "workshop"},
    {"fisherman", "fishermen", MALE, "harbor"},
    {"shepherd", "shepherds", NEUTER, "meadow"},
    {"soldier", "soldiers", NEUTER, "castle"},
    {"merchant", "merchants", NEUTER, "market"},
    {"hunter", "hunters", NEUTER, "forest"},
    {"guard", "guards", NEUTER, "tower"},
    {"gardener", "gardeners", NEUTER, "garden"},
    {"blacksmith", "blacksmiths", NEUTER, "forge"},
    {"king", "kings", MALE, "castle"},
    {"queen", "queens", FEMALE, "castle"},
    {"man", "men", MALE, NULL},
    {"woman", "women", FEMALE, NULL},
    {"boy", "boys", MALE, NULL},
    {"girl", "girls", FEMALE, NULL},
    {"child", "children", NEUTER, NULL},
    {"stranger", "strangers", NEUTER, NULL},
    {"traveler", "travelers", NEUTER, NULL},
    {"neighbor", "neighbors", NEUTER, NULL},
};
const int N_PERSONS = (int)(sizeof PERSONS / sizeof PERSONS[0]);

const char *const PERSON_ADJECTIVES[] = {
    "old", "young", "tall", "brave", "quiet", "kind", "clever", "proud",
    "wise", "shy", "busy", "little", "gentle", "cheerful", "grumpy",
};
const int N_PERSON_ADJECTIVES = (int)(sizeof PERSON_ADJECTIVES / sizeof PERSON_ADJECTIVES[0]);

const char *const RELATIVES[] = {
    "brother", "sister", "mother", "father", "uncle", "aunt", "cousin",
    "friend", "grandmother", "grandfather", "son", "daughter",
};
const int N_RELATIVES = (int)(sizeof RELATIVES / sizeof RELATIVES[0]);

const Animal ANIMALS[] = {
    {"dog", "dogs", {"bark", "barks", "barked"}, "cat"},
    {"cat", "cats", {"meow", "meows", "meowed"}, "mouse"},
    {"horse", "horses", {"neigh", "neighs", "neighed"}, NULL},
    {"owl", "owls", {"hoot", "hoots", "hooted"}, "mouse"},
    {"bird", "birds", {"sing", "sings", "sang"}, NULL},
    {"wolf", "wolves", {"howl", "howls", "howled"}, "goat"},
    {"duck", "ducks", {"quack", "quacks", "quacked"}, NULL},
    {"cow", "cows", {"moo", "moos", "mooed"}, NULL},
    {"goat", "goats", {"bleat", "bleats", "bleated"}, NULL},
    {"mouse", "mice", {"squeak", "squeaks", "squeaked"}, NULL},
    {"rooster", "roosters", {"crow", "crows", "crowed"}, NULL},
    {"frog", "frogs", {"croak", "croaks", "croaked"}, NULL},
    {"fox", "foxes", {"yelp", "yelps", "yelped"}, "duck"},
};
const int N_ANIMALS = (int)(sizeof ANIMALS / sizeof ANIMALS[0]);

const char *const ANIMAL_ADJECTIVES[] = {"old", "little", "big", "black", "white",
                                                "brown", "gray", "hungry", "young"};
const int N_ANIMAL_ADJECTIVES = (int)(sizeof ANIMAL_ADJECTIVES / sizeof ANIMAL_ADJECTIVES[0]);

const Place PLACES[] = {
    {"market", {"to", "toward", "past", NULL}},
    {"bakery", {"to", "into", "past", NULL}},
    {"school", {"to", "toward", "past", NULL}},
    {"library", {"to", "into", "past", NULL}},
    {"mill", {"to", "toward", "past", NULL}},
    {"castle", {"to", "toward", "into", NULL}},
    {"tower", {"to", "into", "toward", NULL}},
    {"harbor", {"to", "toward", "along", NULL}},
    {"hospital", {"to", "into", "past", NULL}},
    {"workshop", {"to", "into", "past", NULL}},
    {"forge", {"to", "into", "past", NULL}},
    {"farm", {"to", "toward", "past", NULL}},
    {"river", {"to", "along", "across", NULL}},
    {"lake", {"to", "around", "toward", NULL}},
    {"bridge", {"to", "across", "toward", NULL}},
    {"forest", {"to", "into", "through", NULL}},
    {"field", {"to", "across", "through", NULL}},
    {"meadow", {"to", "across", "through", NULL}},
    {"garden", {"to", "into", "through", NULL}},
    {"hill", {"to", "up", "over", NULL}},
    {"road", {"along", "down", "up", NULL}},
    {"village", {"to", "through", "toward", NULL}},
    {"square", {"to", "across", "into", NULL}},
    {"inn", {"to", "into", "past", NULL}},
    {"church", {"to", "into", "past", NULL}},
    {"orchard", {"to", "into", "through", NULL}},
    {"beach", {"to", "along", "across", NULL}},
    {"well", {"to", "toward", "past", NULL}},
    {"cave", {"to", "into", "toward", NULL}},
    {"gate", {"to", "through", "toward", NULL}},
};
const int N_PLACES = (int)(sizeof PLACES / sizeof PLACES[0]);

/* Places where "in the ..." reads well (things happen there). */
const char *const INSIDE_PLACES[] = {
    "market", "bakery",  "library", "castle", "tower",   "harbor", "forest",
    "field",  "meadow",  "garden",  "village", "square", "inn",    "church",
    "orchard", "cave",   "workshop", "forge",  "mill",   "barn",   "kitchen",
};
const int N_INSIDE_PLACES = (int)(sizeof INSIDE_PLACES / sizeof INSIDE_PLACES[0]);

const Verb MOTION_VERBS[] = {
    {"walk", "walks", "walked"},     {"run", "runs", "ran"},
    {"hurry", "hurries", "hurried"}, {"wander", "wanders", "wandered"},
    {"ride", "rides", "rode"},       {"stroll", "strolls", "strolled"},
};
const int N_MOTION_VERBS = (int)(sizeof MOTION_VERBS / sizeof MOTION_VERBS[0]);

const Weather WEATHERS[] = {
    {"it", {"rain", "rains", "rained"}, 0},
    {"it", {"snow", "snows", "snowed"}, 0},
    {"the wind", {"blow", "blows", "blew"}, 0},
    {"the sun", {"shine", "shines", "shone"}, 1},
};

const Town TOWNS[] = {
    {"oakridge", 2}, {"millbrook", 0}, {"stonehaven", 1}, {"ashford", 3},
    {"riverton", 0}, {"pinecrest", 1}, {"greywater", 0},  {"redhill", 2},
};
const int N_TOWNS = (int)(sizeof TOWNS / sizeof TOWNS[0]);

const Character CHARACTERS[] = {
    {"mara", FEMALE, 0, "sailor", "cat", "black"},
    {"tom", MALE, 1, "baker", "dog", "brown"},
    {"lena", FEMALE, 2, "teacher", "horse", "white"},
    {"ben", MALE, 3, "farmer", "goat", "gray"},
    {"ada", FEMALE, 4, "doctor", "dog", "black"},
    {"otto", MALE, 5, "miller", "cat", "gray"},
    {"nora", FEMALE, 6, "painter", "duck", "white"},
    {"finn", MALE, 7, "fisherman", "cat", "white"},
    {"ida", FEMALE, 0, "shepherd", "dog", "spotted"},
    {"hugo", MALE, 1, "soldier", "horse", "black"},
    {"elsa", FEMALE, 2, "merchant", "goat", "white"},
    {"leo", MALE, 3, "hunter", "dog", "gray"},
    {"rosa", FEMALE, 4, "baker", "cat", "brown"},
    {"max", MALE, 5, "teacher", "horse", "brown"},
    {"vera", FEMALE, 6, "guard", "dog", "white"},
    {"oscar", MALE, 7, "sailor", "duck", "brown"},
    {"iris", FEMALE, 0, "gardener", "cat", "spotted"},
    {"felix", MALE, 1, "doctor", "horse", "gray"},
    {"tilda", FEMALE, 3, "blacksmith", "dog", "brown"},
    {"karl", MALE, 2, "miller", "goat", "black"},
};
const int N_CHARACTERS = (int)(sizeof CHARACTERS / sizeof CHARACTERS[0]);

/* Time phrases: ones that fit either tense, and tense-specific ones. */
const char *const TIMES_ANY[] = {
    "in the morning", "in the evening", "at noon", "at night",
    "before dawn",    "after dinner",   "at dusk", "in the rain",
};
const int N_TIMES_ANY = (int)(sizeof TIMES_ANY / sizeof TIMES_ANY[0]);

const char *const TIMES_PAST[] = {
    "yesterday", "last night", "last week", "last winter", "long ago", "the day before",
};
const int N_TIMES_PAST = (int)(sizeof TIMES_PAST / sizeof TIMES_PAST[0]);

const char *const TIMES_PRESENT[] = {
    "every day", "every morning", "every evening", "on sundays", "each spring", "most days",
};
const int N_TIMES_PRESENT = (int)(sizeof TIMES_PRESENT / sizeof TIMES_PRESENT[0]);

/* States for "X was tired" and the needs that lead to "so she ...". */
const char *const STATES[] = {
    "tired", "happy", "sad", "late", "busy", "quiet", "angry",
    "afraid", "glad", "sleepy", "worried", "calm", "proud",
};
const int N_STATES = (int)(sizeof STATES / sizeof STATES[0]);

const char *const NEEDS[N_NEEDS] = {
    [NEED_HUNGRY] = "hungry", [NEED_THIRSTY] = "thirsty", [NEED_COLD] = "cold",
    [NEED_TIRED] = "tired",   [NEED_BORED] = "bored",     [NEED_LONELY] = "lonely",
};

const Shop SHOPS[] = {
    {"bakery", {"buy", "buys", "bought"}, BAKED},
    {"market", {"buy", "buys", "bought"}, PRODUCE},
    {"library", {"borrow", "borrows", "borrowed"}, READABLE},
};
const int N_SHOPS = (int)(sizeof SHOPS / sizeof SHOPS[0]);

const Verb VERB_GO = {"go", "goes", "went"};
const Verb VERB_EAT = {"eat", "eats", "ate"};
const Verb VERB_READ = {"read", "reads", "read"};
const Verb VERB_PUT_ON = {"put on", "puts on", "put on"};
const Verb VERB_GIVE = {"give", "gives", "gave"};
const Verb VERB_DRINK = {"drink", "drinks", "drank"};
const Verb VERB_VISIT = {"visit", "visits", "visited"};
const Verb VERB_CHASE = {"chase", "chases", "chased"};
const Verb VERB_LIVE = {"live", "lives", "lived"};
const Verb VERB_WORK = {"work", "works", "worked"};
const Verb VERB_FEED = {"feed", "feeds", "fed"};
const Verb VERB_SAY = {"say", "says", "said"};
const Verb VERB_TELL = {"tell", "tells", "told"};

const char *const NUMBERS[] = {"two", "three", "four", "five"};
const int N_NUMBERS = (int)(sizeof NUMBERS / sizeof NUMBERS[0]);
