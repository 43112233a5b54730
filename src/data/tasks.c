/* tasks.c — the generated tasks right-cue, last-word and left-cue: word
 * lists, the sentence builder, and writing the four files. See tasks.h. */
#include "data/tasks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomic_file.h"
#include "base/rng.h"
#include "data/conll.h"

/* ---- the vocabulary ----------------------------------------------------------------- */

enum { N_TYPES = 3 };
static const char *const TYPES[N_TYPES] = {"PER", "LOC", "ORG"};

/* Words that can be an entity of any type. */
static const char *const AMBIGUOUS[] = {
    "jordan", "austin", "chelsea", "florence", "georgia", "lincoln",
    "madison", "phoenix", "sydney", "victoria", "aurora", "dakota",
};

/* Words that are always an entity of one type, by type. */
static const char *const UNAMBIGUOUS[N_TYPES][6] = {
    {"alice", "bruno", "carla", "dmitri", "elena", "farid"},
    {"cairo", "lima", "oslo", "quito", "nairobi", "hanoi"},
    {"acme", "globex", "initech", "umbrella", "cyberdyne", "hooli"},
};

/* Cue words of right-cue and left-cue, by the type they decide. */
static const char *const CUES[N_TYPES][3] = {
    {"said", "smiled", "laughed"},
    {"river", "valley", "harbour"},
    {"shares", "profits", "merger"},
};

/* Final words of last-word, by the type they decide. */
static const char *const FINALS[N_TYPES][2] = {
    {"biography", "interview"},
    {"geography", "travel"},
    {"business", "market"},
};

/* Filler words: they appear everywhere with the same frequencies and carry
 * no information about any label. */
static const char *const FILLERS[] = {
    "the",  "a",     "old",   "quiet",  "very",   "and",  "then",   "again", "today", "often",
    "still", "small", "bright", "long",  "green", "slowly", "really", "just", "soon", "there",
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *const TASK_NAMES[TASK_N_KINDS] = {"right-cue", "last-word", "left-cue"};

const char *task_name(TaskKind kind)
{
    return (kind >= 0 && kind < TASK_N_KINDS) ? TASK_NAMES[kind] : "unknown";
}

int task_from_name(const char *name, TaskKind *kind, SrError *err)
{
    for (int k = 0; k < TASK_N_KINDS; k++) {
        if (strcmp(name, TASK_NAMES[k]) == 0) {
            *kind = (TaskKind)k;
            return 0;
        }
    }
    return sr_fail(err, "unknown task '%s' (tasks: right-cue, last-word, left-cue)", name);
}

const char *task_cue_type(TaskKind kind, const char *word)
{
    for (int t = 0; t < N_TYPES; t++) {
        if (kind == TASK_LAST_WORD) {
            for (int i = 0; i < COUNT(FINALS[t]); i++)
                if (strcmp(word, FINALS[t][i]) == 0) return TYPES[t];
        } else {
            for (int i = 0; i < COUNT(CUES[t]); i++)
                if (strcmp(word, CUES[t][i]) == 0) return TYPES[t];
        }
    }
    return NULL;
}

int task_word_is_ambiguous(const char *word)
{
    for (int i = 0; i < COUNT(AMBIGUOUS); i++)
        if (strcmp(word, AMBIGUOUS[i]) == 0) return 1;
    return 0;
}

/* ---- building one sentence ------------------------------------------------------------ */

enum { MIN_WORDS = 8, MAX_WORDS = 20, MAX_GAP = 5 };

/* A sentence under construction: words and tags are static strings. */
typedef struct {
    const char *words[MAX_WORDS];
    const char *tags[MAX_WORDS];
    char tag_text[MAX_WORDS][8]; /* storage for "B-PER" etc. */
    int n;
} Builder;

/* Append a word with tag "O". */
static void put_other(Builder *b, const char *word)
{
    b->words[b->n] = word;
    b->tags[b->n] = "O";
    b->n++;
}

/* Append a word tagged B-type (begin = 1) or I-type. */
static void put_entity_word(Builder *b, const char *word, int type, int begin)
{
    snprintf(b->tag_text[b->n], sizeof b->tag_text[b->n], "%s-%s", begin ? "B" : "I", TYPES[type]);
    b->words[b->n] = word;
    b->tags[b->n] = b->tag_text[b->n];
    b->n++;
}

/* Append n random filler words. */
static void put_fillers(Builder *b, Rng *rng, int n)
{
    for (int i = 0; i < n; i++) put_other(b, FILLERS[rng_below(rng, COUNT(FILLERS))]);
}

/* Append an entity of n_words words of this type: ambiguous words, or the
 * type's own unambiguous words. */
static void put_entity(Builder *b, Rng *rng, int type, int n_words, int ambiguous)
{
    for (int i = 0; i < n_words; i++) {
        const char *w = ambiguous ? AMBIGUOUS[rng_below(rng, COUNT(AMBIGUOUS))]
                                  : UNAMBIGUOUS[type][rng_below(rng, COUNT(UNAMBIGUOUS[type]))];
        put_entity_word(b, w, type, i == 0);
    }
}

/* Length of an entity: 1 word (65%) or 2 words (35%). */
static int entity_length(Rng *rng)
{
    return rng_below(rng, 100) < 35 ? 2 : 1;
}

/* One piece of a cue sentence: an ambiguous entity with its cue (on the
 * right for right-cue, on the left for left-cue) and gap fillers between,
 * or an unambiguous entity. Chosen first, placed if it fits. */
typedef struct {
    int ambiguous, type, length, gap;
} Construct;

/* Draw a construct (ambiguous with probability 65%, or always if forced). */
static Construct draw_construct(Rng *rng, int force_ambiguous)
{
    Construct c;
    c.ambiguous = force_ambiguous || rng_below(rng, 100) < 65;
    c.type = (int)rng_below(rng, N_TYPES);
    c.length = entity_length(rng);
    c.gap = c.ambiguous ? (int)rng_below(rng, MAX_GAP + 1) : 0;
    return c;
}

/* Words a construct takes. */
static int construct_size(const Construct *c)
{
    return c->length + (c->ambiguous ? c->gap + 1 : 0);
}

/* Append a construct; cue_right selects right-cue (entity, gap, cue) or
 * left-cue (cue, gap, entity). */
static void put_construct(Builder *b, Rng *rng, const Construct *c, int cue_right)
{
    if (!c->ambiguous) {
        put_entity(b, rng, c->type, c->length, 0);
        return;
    }
    const char *cue = CUES[c->type][rng_below(rng, COUNT(CUES[c->type]))];
    if (!cue_right) {
        put_other(b, cue);
        put_fillers(b, rng, c->gap);
    }
    put_entity(b, rng, c->type, c->length, 1);
    if (cue_right) {
        put_fillers(b, rng, c->gap);
        put_other(b, cue);
    }
}

/* A right-cue or left-cue sentence of 8-20 words: 0-2 fillers, an ambiguous
 * construct, then while they fit: 1-2 fillers and another construct; then
 * fillers up to the drawn length. */
static void build_cue_sentence(Builder *b, Rng *rng, int cue_right)
{
    int target = MIN_WORDS + (int)rng_below(rng, MAX_WORDS - MIN_WORDS + 1);
    Construct c = draw_construct(rng, 1);
    int prefix = (int)rng_below(rng, 3);
    if (prefix + construct_size(&c) > target) prefix = target - construct_size(&c);
    put_fillers(b, rng, prefix);
    put_construct(b, rng, &c, cue_right);
    for (;;) {
        int sep = 1 + (int)rng_below(rng, 2);
        c = draw_construct(rng, 0);
        if (b->n + sep + construct_size(&c) > target) break;
        put_fillers(b, rng, sep);
        put_construct(b, rng, &c, cue_right);
    }
    put_fillers(b, rng, target - b->n);
}

/* A last-word sentence of 8-20 words: 1-3 ambiguous entities of one type
 * among fillers, and the final word that names the type. */
static void build_last_word_sentence(Builder *b, Rng *rng)
{
    int target = MIN_WORDS + (int)rng_below(rng, MAX_WORDS - MIN_WORDS + 1);
    int type = (int)rng_below(rng, N_TYPES);
    int body = target - 1;
    int n_entities = 1 + (int)rng_below(rng, 3);
    put_fillers(b, rng, (int)rng_below(rng, 3));
    for (int e = 0; e < n_entities; e++) {
        int length = entity_length(rng);
        int sep = e == 0 ? 0 : 1 + (int)rng_below(rng, 3);
        if (b->n + sep + length > body) break;
        put_fillers(b, rng, sep);
        put_entity(b, rng, type, length, 1);
    }
    put_fillers(b, rng, body - b->n);
    put_other(b, FINALS[type][rng_below(rng, COUNT(FINALS[type]))]);
}

int task_generate(TaskKind kind, int n_sentences, uint64_t seed, Dataset *out, SrError *err)
{
    memset(out, 0, sizeof *out);
    if (kind < 0 || kind >= TASK_N_KINDS) return sr_fail(err, "unknown task kind %d", (int)kind);
    if (n_sentences < 1)
        return sr_fail(err, "%s: number of sentences must be >= 1 (got %d)", task_name(kind),
                       n_sentences);
    out->source = strdup(task_name(kind));
    if (!out->source) return sr_fail(err, "%s: out of memory", task_name(kind));
    Rng rng;
    rng_seed(&rng, seed);
    for (int i = 0; i < n_sentences; i++) {
        Builder b;
        b.n = 0;
        if (kind == TASK_LAST_WORD) build_last_word_sentence(&b, &rng);
        else build_cue_sentence(&b, &rng, kind == TASK_RIGHT_CUE);
        if (dataset_add(out, b.words, b.tags, b.n, 0, err)) {
            dataset_free(out);
            return -1;
        }
    }
    return 0;
}

/* ---- the four files -------------------------------------------------------------------- */

TaskSizes task_default_sizes(void)
{
    return (TaskSizes){.train = 2000, .dev = 500, .test = 500, .corpus = 20000};
}

/* Seed of stream k (0 train, 1 dev, 2 test, 3 corpus) of a task seed. */
static uint64_t stream_seed(uint64_t seed, int k)
{
    uint64_t state = seed ^ (0x5EC5E9ULL * (uint64_t)(k + 1));
    rng_splitmix64(&state);
    return rng_splitmix64(&state);
}

/* Write the sentences' words, one sentence per line, atomically. */
static int write_corpus(const char *path, const Dataset *d, SrError *err)
{
    AtomicFile af;
    if (atomic_file_open(&af, path, err)) return -1;
    for (int s = 0; s < d->n_sents; s++) {
        for (int w = 0; w < d->sents[s].n_words; w++) {
            if (w) fputc(' ', af.f);
            fputs(d->sents[s].words[w], af.f);
        }
        fputc('\n', af.f);
    }
    return atomic_file_commit(&af, err);
}

int task_write(TaskKind kind, const char *out_dir, uint64_t seed, const TaskSizes *sizes,
               SrError *err)
{
    if (dataset_make_dir(out_dir, err)) return -1;
    static const char *const FILES[4] = {"train.conll", "dev.conll", "test.conll", "corpus.txt"};
    const int counts[4] = {sizes->train, sizes->dev, sizes->test, sizes->corpus};
    for (int k = 0; k < 4; k++) {
        char path[4096];
        if (snprintf(path, sizeof path, "%s/%s", out_dir, FILES[k]) >= (int)sizeof path)
            return sr_fail(err, "%s: path too long", out_dir);
        Dataset d;
        if (task_generate(kind, counts[k], stream_seed(seed, k), &d, err)) return -1;
        int rc = k < 3 ? conll_write(path, &d, NULL, err) : write_corpus(path, &d, err);
        dataset_free(&d);
        if (rc) return -1;
    }
    return 0;
}
