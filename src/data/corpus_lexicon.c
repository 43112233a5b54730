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
    {.singular = "apple", .plural = "apples", .kinds = EDIBLE | GIFT | PRODUCE,
     .adjectives = ADJ_FRUIT},
    {.singular = "pear", .plural = "pears", .kinds = EDIBLE | PRODUCE, .adjectives = ADJ_FRUIT},
    {.singular = "plum", .plural = "plums", .kinds = EDIBLE | PRODUCE, .adjectives = ADJ_FRUIT},
    {.singular = "orange", .plural = "oranges", .kinds = EDIBLE | GIFT | PRODUCE,
     .adjectives = ADJ_FRUIT},
    {.singular = "egg", .plural = "eggs", .kinds = EDIBLE | PRODUCE, .adjectives = ADJ_FRESH},
    {.singular = "onion", .plural = "onions", .kinds = EDIBLE | PRODUCE, .adjectives = ADJ_FRESH},
    {.singular = "carrot", .plural = "carrots", .kinds = EDIBLE | PRODUCE, .adjectives = ADJ_FRESH},
    {.singular = "fish", .plural = "fish", .kinds = EDIBLE | PRODUCE, .adjectives = ADJ_FRESH},
    {.singular = "cake", .plural = "cakes", .kinds = EDIBLE | GIFT | BAKED,
     .adjectives = ADJ_BAKED},
    {.singular = "pie", .plural = "pies", .kinds = EDIBLE | BAKED, .adjectives = ADJ_BAKED},
    {.singular = "biscuit", .plural = "biscuits", .kinds = EDIBLE | BAKED, .adjectives = ADJ_BAKED},
    {.singular = "loaf", .plural = "loaves", .kinds = EDIBLE | BAKED, .adjectives = ADJ_BAKED},
    {.singular = "book", .plural = "books", .kinds = READABLE | GIFT | FINDABLE | CARRYABLE,
     .adjectives = ADJ_OBJECT},
    {.singular = "letter", .plural = "letters", .kinds = READABLE | GIFT | FINDABLE,
     .adjectives = ADJ_OBJECT},
    {.singular = "map", .plural = "maps", .kinds = READABLE | GIFT | FINDABLE,
     .adjectives = ADJ_OBJECT},
    {.singular = "note", .plural = "notes", .kinds = READABLE | FINDABLE, .adjectives = ADJ_OBJECT},
    {.singular = "poem", .plural = "poems", .kinds = READABLE | GIFT, .adjectives = ADJ_OBJECT},
    {.singular = "key", .plural = "keys", .kinds = FINDABLE | GIFT, .adjectives = ADJ_OBJECT},
    {.singular = "coin", .plural = "coins", .kinds = FINDABLE | GIFT, .adjectives = ADJ_OBJECT},
    {.singular = "ring", .plural = "rings", .kinds = FINDABLE | GIFT, .adjectives = ADJ_OBJECT},
    {.singular = "feather", .plural = "feathers", .kinds = FINDABLE | GIFT,
     .adjectives = ADJ_OBJECT},
    {.singular = "shell", .plural = "shells", .kinds = FINDABLE | GIFT, .adjectives = ADJ_OBJECT},
    {.singular = "stone", .plural = "stones", .kinds = FINDABLE | CARRYABLE,
     .adjectives = ADJ_OBJECT},
    {.singular = "knife", .plural = "knives", .kinds = FINDABLE | GIFT, .adjectives = ADJ_OBJECT},
    {.singular = "button", .plural = "buttons", .kinds = FINDABLE, .adjectives = ADJ_OBJECT},
    {.singular = "glove", .plural = "gloves", .kinds = FINDABLE | MENDABLE | GIFT,
     .adjectives = ADJ_OBJECT},
    {.singular = "hat", .plural = "hats", .kinds = FINDABLE | MENDABLE | GIFT,
     .adjectives = ADJ_OBJECT},
    {.singular = "scarf", .plural = "scarves", .kinds = FINDABLE | MENDABLE | GIFT,
     .adjectives = ADJ_OBJECT},
    {.singular = "coat", .plural = "coats", .kinds = MENDABLE | GIFT, .adjectives = ADJ_OBJECT},
    {.singular = "boot", .plural = "boots", .kinds = MENDABLE, .adjectives = ADJ_OBJECT},
    {.singular = "basket", .plural = "baskets", .kinds = CARRYABLE | MENDABLE | GIFT,
     .adjectives = ADJ_OBJECT},
    {.singular = "box", .plural = "boxes", .kinds = CARRYABLE | BUILDABLE | PAINTABLE | GIFT,
     .adjectives = ADJ_OBJECT},
    {.singular = "bucket", .plural = "buckets", .kinds = CARRYABLE, .adjectives = ADJ_OBJECT},
    {.singular = "lamp", .plural = "lamps", .kinds = CARRYABLE | FINDABLE | GIFT,
     .adjectives = ADJ_OBJECT},
    {.singular = "candle", .plural = "candles", .kinds = CARRYABLE | GIFT,
     .adjectives = ADJ_OBJECT},
    {.singular = "sack", .plural = "sacks", .kinds = CARRYABLE | MENDABLE,
     .adjectives = ADJ_OBJECT},
    {.singular = "ladder", .plural = "ladders", .kinds = CARRYABLE | BUILDABLE,
     .adjectives = ADJ_OBJECT},
    {.singular = "chair", .plural = "chairs", .kinds = CARRYABLE | BUILDABLE | PAINTABLE | MENDABLE,
     .adjectives = ADJ_OBJECT},
    {.singular = "table", .plural = "tables", .kinds = BUILDABLE | PAINTABLE | MENDABLE,
     .adjectives = ADJ_OBJECT},
    {.singular = "boat", .plural = "boats", .kinds = BUILDABLE | PAINTABLE | MENDABLE,
     .adjectives = ADJ_OBJECT},
    {.singular = "house", .plural = "houses", .kinds = BUILDABLE | PAINTABLE,
     .adjectives = ADJ_OBJECT},
    {.singular = "wall", .plural = "walls", .kinds = BUILDABLE | PAINTABLE | MENDABLE,
     .adjectives = ADJ_OBJECT},
    {.singular = "fence", .plural = "fences", .kinds = BUILDABLE | PAINTABLE | MENDABLE,
     .adjectives = ADJ_OBJECT},
    {.singular = "cart", .plural = "carts", .kinds = BUILDABLE | PAINTABLE | MENDABLE,
     .adjectives = ADJ_OBJECT},
    {.singular = "door", .plural = "doors", .kinds = PAINTABLE | MENDABLE,
     .adjectives = ADJ_OBJECT},
    {.singular = "roof", .plural = "roofs", .kinds = MENDABLE, .adjectives = ADJ_OBJECT},
    {.singular = "net", .plural = "nets", .kinds = MENDABLE | CARRYABLE, .adjectives = ADJ_OBJECT},
    {.singular = "sail", .plural = "sails", .kinds = MENDABLE, .adjectives = ADJ_OBJECT},
    {.singular = "picture", .plural = "pictures", .kinds = PAINTABLE | GIFT,
     .adjectives = ADJ_OBJECT},
    {.singular = "sign", .plural = "signs", .kinds = PAINTABLE, .adjectives = ADJ_OBJECT},
    {.singular = "flower", .plural = "flowers", .kinds = GIFT, .adjectives = ADJ_OBJECT},
};
const int N_THINGS = (int)(sizeof THINGS / sizeof THINGS[0]);

const TransitiveVerb TRANSITIVE_VERBS[] = {
    {.verb = {.base = "eat", .third = "eats", .past = "ate"}, .object_kind = EDIBLE},
    {.verb = {.base = "read", .third = "reads", .past = "read"}, .object_kind = READABLE},
    {.verb = {.base = "find", .third = "finds", .past = "found"}, .object_kind = FINDABLE},
    {.verb = {.base = "lose", .third = "loses", .past = "lost"}, .object_kind = FINDABLE},
    {.verb = {.base = "carry", .third = "carries", .past = "carried"}, .object_kind = CARRYABLE},
    {.verb = {.base = "build", .third = "builds", .past = "built"}, .object_kind = BUILDABLE},
    {.verb = {.base = "paint", .third = "paints", .past = "painted"}, .object_kind = PAINTABLE},
    {.verb = {.base = "mend", .third = "mends", .past = "mended"}, .object_kind = MENDABLE},
};
const int N_TRANSITIVE_VERBS = (int)(sizeof TRANSITIVE_VERBS / sizeof TRANSITIVE_VERBS[0]);

const char *const DRINKS[] = {"water", "milk", "tea", "cider", "juice"};
const int N_DRINKS = (int)(sizeof DRINKS / sizeof DRINKS[0]);

const PersonNoun PERSONS[] = {
    {.singular = "sailor", .plural = "sailors", .gender = NEUTER, .workplace = "harbor"},
    {.singular = "baker", .plural = "bakers", .gender = NEUTER, .workplace = "bakery"},
    {.singular = "teacher", .plural = "teachers", .gender = NEUTER, .workplace = "school"},
    {.singular = "farmer", .plural = "farmers", .gender = NEUTER, .workplace = "farm"},
    {.singular = "doctor", .plural = "doctors", .gender = NEUTER, .workplace = "hospital"},
    {.singular = "miller", .plural = "millers", .gender = NEUTER, .workplace = "mill"},
    {.singular = "painter", .plural = "painters", .gender = NEUTER, .workplace = "workshop"},
    {.singular = "fisherman", .plural = "fishermen", .gender = MALE, .workplace = "harbor"},
    {.singular = "shepherd", .plural = "shepherds", .gender = NEUTER, .workplace = "meadow"},
    {.singular = "soldier", .plural = "soldiers", .gender = NEUTER, .workplace = "castle"},
    {.singular = "merchant", .plural = "merchants", .gender = NEUTER, .workplace = "market"},
    {.singular = "hunter", .plural = "hunters", .gender = NEUTER, .workplace = "forest"},
    {.singular = "guard", .plural = "guards", .gender = NEUTER, .workplace = "tower"},
    {.singular = "gardener", .plural = "gardeners", .gender = NEUTER, .workplace = "garden"},
    {.singular = "blacksmith", .plural = "blacksmiths", .gender = NEUTER, .workplace = "forge"},
    {.singular = "king", .plural = "kings", .gender = MALE, .workplace = "castle"},
    {.singular = "queen", .plural = "queens", .gender = FEMALE, .workplace = "castle"},
    {.singular = "man", .plural = "men", .gender = MALE, .workplace = NULL},
    {.singular = "woman", .plural = "women", .gender = FEMALE, .workplace = NULL},
    {.singular = "boy", .plural = "boys", .gender = MALE, .workplace = NULL},
    {.singular = "girl", .plural = "girls", .gender = FEMALE, .workplace = NULL},
    {.singular = "child", .plural = "children", .gender = NEUTER, .workplace = NULL},
    {.singular = "stranger", .plural = "strangers", .gender = NEUTER, .workplace = NULL},
    {.singular = "traveler", .plural = "travelers", .gender = NEUTER, .workplace = NULL},
    {.singular = "neighbor", .plural = "neighbors", .gender = NEUTER, .workplace = NULL},
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
    {.singular = "dog", .plural = "dogs",
     .sound = {.base = "bark", .third = "barks", .past = "barked"}, .chases = "cat"},
    {.singular = "cat", .plural = "cats",
     .sound = {.base = "meow", .third = "meows", .past = "meowed"}, .chases = "mouse"},
    {.singular = "horse", .plural = "horses",
     .sound = {.base = "neigh", .third = "neighs", .past = "neighed"}, .chases = NULL},
    {.singular = "owl", .plural = "owls",
     .sound = {.base = "hoot", .third = "hoots", .past = "hooted"}, .chases = "mouse"},
    {.singular = "bird", .plural = "birds",
     .sound = {.base = "sing", .third = "sings", .past = "sang"}, .chases = NULL},
    {.singular = "wolf", .plural = "wolves",
     .sound = {.base = "howl", .third = "howls", .past = "howled"}, .chases = "goat"},
    {.singular = "duck", .plural = "ducks",
     .sound = {.base = "quack", .third = "quacks", .past = "quacked"}, .chases = NULL},
    {.singular = "cow", .plural = "cows",
     .sound = {.base = "moo", .third = "moos", .past = "mooed"}, .chases = NULL},
    {.singular = "goat", .plural = "goats",
     .sound = {.base = "bleat", .third = "bleats", .past = "bleated"}, .chases = NULL},
    {.singular = "mouse", .plural = "mice",
     .sound = {.base = "squeak", .third = "squeaks", .past = "squeaked"}, .chases = NULL},
    {.singular = "rooster", .plural = "roosters",
     .sound = {.base = "crow", .third = "crows", .past = "crowed"}, .chases = NULL},
    {.singular = "frog", .plural = "frogs",
     .sound = {.base = "croak", .third = "croaks", .past = "croaked"}, .chases = NULL},
    {.singular = "fox", .plural = "foxes",
     .sound = {.base = "yelp", .third = "yelps", .past = "yelped"}, .chases = "duck"},
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
    {.base = "walk", .third = "walks", .past = "walked"},
    {.base = "run", .third = "runs", .past = "ran"},
    {.base = "hurry", .third = "hurries", .past = "hurried"},
    {.base = "wander", .third = "wanders", .past = "wandered"},
    {.base = "ride", .third = "rides", .past = "rode"},
    {.base = "stroll", .third = "strolls", .past = "strolled"},
};
const int N_MOTION_VERBS = (int)(sizeof MOTION_VERBS / sizeof MOTION_VERBS[0]);

const Weather WEATHERS[] = {
    {.subject = "it", .verb = {.base = "rain", .third = "rains", .past = "rained"},
     .daytime_only = 0},
    {.subject = "it", .verb = {.base = "snow", .third = "snows", .past = "snowed"},
     .daytime_only = 0},
    {.subject = "the wind", .verb = {.base = "blow", .third = "blows", .past = "blew"},
     .daytime_only = 0},
    {.subject = "the sun", .verb = {.base = "shine", .third = "shines", .past = "shone"},
     .daytime_only = 1},
};

const Town TOWNS[] = {
    {"oakridge", 2}, {"millbrook", 0}, {"stonehaven", 1}, {"ashford", 3},
    {"riverton", 0}, {"pinecrest", 1}, {"greywater", 0},  {"redhill", 2},
};
const int N_TOWNS = (int)(sizeof TOWNS / sizeof TOWNS[0]);

const Character CHARACTERS[] = {
    {.name = "mara", .gender = FEMALE, .town = 0, .job = "sailor", .pet = "cat",
     .pet_color = "black"},
    {.name = "tom", .gender = MALE, .town = 1, .job = "baker", .pet = "dog", .pet_color = "brown"},
    {.name = "lena", .gender = FEMALE, .town = 2, .job = "teacher", .pet = "horse",
     .pet_color = "white"},
    {.name = "ben", .gender = MALE, .town = 3, .job = "farmer", .pet = "goat", .pet_color = "gray"},
    {.name = "ada", .gender = FEMALE, .town = 4, .job = "doctor", .pet = "dog",
     .pet_color = "black"},
    {.name = "otto", .gender = MALE, .town = 5, .job = "miller", .pet = "cat", .pet_color = "gray"},
    {.name = "nora", .gender = FEMALE, .town = 6, .job = "painter", .pet = "duck",
     .pet_color = "white"},
    {.name = "finn", .gender = MALE, .town = 7, .job = "fisherman", .pet = "cat",
     .pet_color = "white"},
    {.name = "ida", .gender = FEMALE, .town = 0, .job = "shepherd", .pet = "dog",
     .pet_color = "spotted"},
    {.name = "hugo", .gender = MALE, .town = 1, .job = "soldier", .pet = "horse",
     .pet_color = "black"},
    {.name = "elsa", .gender = FEMALE, .town = 2, .job = "merchant", .pet = "goat",
     .pet_color = "white"},
    {.name = "leo", .gender = MALE, .town = 3, .job = "hunter", .pet = "dog", .pet_color = "gray"},
    {.name = "rosa", .gender = FEMALE, .town = 4, .job = "baker", .pet = "cat",
     .pet_color = "brown"},
    {.name = "max", .gender = MALE, .town = 5, .job = "teacher", .pet = "horse",
     .pet_color = "brown"},
    {.name = "vera", .gender = FEMALE, .town = 6, .job = "guard", .pet = "dog",
     .pet_color = "white"},
    {.name = "oscar", .gender = MALE, .town = 7, .job = "sailor", .pet = "duck",
     .pet_color = "brown"},
    {.name = "iris", .gender = FEMALE, .town = 0, .job = "gardener", .pet = "cat",
     .pet_color = "spotted"},
    {.name = "felix", .gender = MALE, .town = 1, .job = "doctor", .pet = "horse",
     .pet_color = "gray"},
    {.name = "tilda", .gender = FEMALE, .town = 3, .job = "blacksmith", .pet = "dog",
     .pet_color = "brown"},
    {.name = "karl", .gender = MALE, .town = 2, .job = "miller", .pet = "goat",
     .pet_color = "black"},
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
    {.place = "bakery", .verb = {.base = "buy", .third = "buys", .past = "bought"}, .kind = BAKED},
    {.place = "market", .verb = {.base = "buy", .third = "buys", .past = "bought"},
     .kind = PRODUCE},
    {.place = "library", .verb = {.base = "borrow", .third = "borrows", .past = "borrowed"},
     .kind = READABLE},
};
const int N_SHOPS = (int)(sizeof SHOPS / sizeof SHOPS[0]);

const Verb VERB_GO = {.base = "go", .third = "goes", .past = "went"};
const Verb VERB_EAT = {.base = "eat", .third = "eats", .past = "ate"};
const Verb VERB_READ = {.base = "read", .third = "reads", .past = "read"};
const Verb VERB_PUT_ON = {.base = "put on", .third = "puts on", .past = "put on"};
const Verb VERB_GIVE = {.base = "give", .third = "gives", .past = "gave"};
const Verb VERB_DRINK = {.base = "drink", .third = "drinks", .past = "drank"};
const Verb VERB_VISIT = {.base = "visit", .third = "visits", .past = "visited"};
const Verb VERB_CHASE = {.base = "chase", .third = "chases", .past = "chased"};
const Verb VERB_LIVE = {.base = "live", .third = "lives", .past = "lived"};
const Verb VERB_WORK = {.base = "work", .third = "works", .past = "worked"};
const Verb VERB_FEED = {.base = "feed", .third = "feeds", .past = "fed"};
const Verb VERB_SAY = {.base = "say", .third = "says", .past = "said"};
const Verb VERB_TELL = {.base = "tell", .third = "tells", .past = "told"};

const char *const NUMBERS[] = {"two", "three", "four", "five"};
const int N_NUMBERS = (int)(sizeof NUMBERS / sizeof NUMBERS[0]);
