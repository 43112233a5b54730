/* cmd_gen_repo.c — `seqrep gen-repo`: write examples of a RePo task (key-value
 * retrieval, needle in a haystack, table lookup; see src/repo_tasks.h) as a
 * text corpus, one example per line, each line ending with its answer, so
 * that `seqrep train-lm` can train on them (it puts <bos> before every line,
 * which is where the examples have theirs). With --answers, a CSV says where
 * each example's evidence and answer are (indices count the <bos> as 0). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "base/atomic_file.h"
#include "options/args.h"
#include "repo/repo_tasks.h"
#include "runs/manifest.h"

static const char *CMD = "gen-repo";

int cmd_gen_repo(int argc, char **argv)
{
    const char *task = NULL, *out = NULL, *answers = NULL;
    int length = 64, n = 1000, queries = 1, pairs = 4, rows = 3, cols = 3, seed = 1;
    float depth = -1.0f;
    ArgSpec specs[] = {
        {"task", ARG_STRING, &task, "kv, needle or table", 1, 0, 0},
        {"out", ARG_STRING, &out, "text file to write, one example per line", 1, 0, 0},
        {"length", ARG_INT, &length, "tokens per example, <bos> included (default 64)", 0, 2, 0},
        {"n", ARG_INT, &n, "number of examples (default 1000)", 0, 1, 0},
        {"depth", ARG_FLOAT, &depth, "evidence depth in 0..1, negative = random (default random)", 0, 0, 0},
        {"queries", ARG_INT, &queries, "queries per example (default 1)", 0, 1, 0},
        {"pairs", ARG_INT, &pairs, "kv: key-value pairs (default 4)", 0, 1, 0},
        {"rows", ARG_INT, &rows, "table: rows (default 3)", 0, 1, 0},
        {"cols", ARG_INT, &cols, "table: columns (default 3)", 0, 1, 0},
        {"seed", ARG_INT, &seed, "random seed (default 1)", 0, 0, 0},
        {"answers", ARG_STRING, &answers, "CSV of answer and evidence positions", 0, 0, 0},
    };
    int rc = args_parse(CMD, "--task kv|needle|table --out FILE [options]", specs,
                        (int)(sizeof specs / sizeof specs[0]), argc, argv, NULL, 0, NULL);
    if (rc) return rc == 1 ? 0 : rc;
    RepoTaskKind kind;
    if (repo_task_parse(task, &kind))
        return args_error(CMD, "--task must be kv, needle or table, got '%s'", task);
    RepoTaskSpec s = repo_task_defaults(kind, length);
    s.depth = depth;
    s.n_queries = queries;
    s.n_pairs = pairs;
    s.n_rows = rows;
    s.n_cols = cols;
    SrError err;
    if (repo_task_check(&s, &err)) return args_error(CMD, "%s", err.msg);

    char *text = NULL, *csv = NULL;
    size_t text_len = 0, csv_len = 0;
    FILE *f = open_memstream(&text, &text_len);
    FILE *c = answers ? open_memstream(&csv, &csv_len) : NULL;
    int *ids = malloc(sizeof(int) * length), *targets = malloc(sizeof(int) * length);
    rc = 2;
    if (!f || (answers && !c) || !ids || !targets) {
        fprintf(stderr, "seqrep %s: out of memory\n", CMD);
        goto done;
    }
    if (c) fprintf(c, "index,answer_pos,answer,evidence_start,evidence_len,depth\n");
    for (long i = 0; i < n; i++) {
        RepoExample ex;
        repo_task_example(&s, (uint64_t)seed, i, ids, targets, &ex);
        int last = targets[length - 1];
        repo_task_write_words(f, ids + 1, length - 1); /* train-lm adds the <bos> */
        fputc(' ', f);
        repo_task_write_words(f, &last, 1);
        fputc('\n', f);
        if (c) {
            char word[16];
            repo_task_word(ex.answer, word, sizeof word);
            fprintf(c, "%ld,%d,%s,%d,%d,%.4f\n", i, ex.answer_pos, word, ex.evidence_start,
                    ex.evidence_len, ex.depth);
        }
    }
    fclose(f);
    f = NULL;
    if (c) {
        fclose(c);
        c = NULL;
    }
    if (!text || (answers && !csv) || write_file_atomic(out, text, &err) ||
        (answers && write_file_atomic(answers, csv, &err))) {
        fprintf(stderr, "seqrep %s: %s\n", CMD,
                !text || (answers && !csv) ? "out of memory" : err.msg);
        goto done;
    }
    fprintf(stderr, "wrote %d %s examples of %d tokens to %s\n", n, task, length, out);
    rc = 0;
done:
    if (f) fclose(f);
    if (c) fclose(c);
    free(text);
    free(csv);
    free(ids);
    free(targets);
    return rc;
}
