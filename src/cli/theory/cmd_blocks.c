/* cmd_blocks.c — `seqrep blocks --n N --r R`: the block table of the model's
 * causal mask over k = r + 1 copies of an n-token sentence, counted from the
 * mask and printed beside the closed forms of docs/theory.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "base/atomic_file.h"
#include "cli/common/cli_common.h"
#include "cli/theory/theory_commands.h"
#include "options/args.h"
#include "options/help_text.h"
#include "options/rows.h"
#include "repeat/repeat.h"
#include "runs/manifest.h"
#include "theory/blocks.h"

static const char *CMD = "blocks";

typedef enum { FORMAT_TABLE, FORMAT_CSV, FORMAT_JSON } OutputFormat;

/* One value of r: the figures counted from the mask and from the closed forms. */
typedef struct {
    BlockFigures counted;
    BlockFigures closed;
    int matches;  /* 1 if every counted figure equals its closed form */
} BlocksRow;

/* 1 if every integer figure of a and b agrees. */
static int figures_equal(const BlockFigures *a, const BlockFigures *b)
{
    int same = a->n == b->n && a->r == b->r && a->k == b->k && a->T == b->T &&
               a->n_special == b->n_special && a->full_blocks == b->full_blocks &&
               a->causal_blocks == b->causal_blocks && a->masked_blocks == b->masked_blocks &&
               a->other_blocks == b->other_blocks && a->visible_pairs == b->visible_pairs &&
               a->word_pairs == b->word_pairs && a->right_pairs == b->right_pairs &&
               a->full_block_pairs == b->full_block_pairs && a->sink_pairs == b->sink_pairs &&
               a->special_query_pairs == b->special_query_pairs;
    for (int c = 0; same && c < a->k; c++) same = a->seen_whole[c] == b->seen_whole[c];
    return same;
}

/* "num/den" in lowest terms into buf. */
static const char *fraction_text(char *buf, size_t cap, Share s)
{
    s = share_reduce(s);
    snprintf(buf, cap, "%lld/%lld", (long long)s.num, (long long)s.den);
    return buf;
}

/* The smallest share of words that saw the whole sentence over copies 2..k,
 * or -1 when there is only one copy. */
static double later_copies_min_share(const BlockFigures *f)
{
    double low = -1.0;
    for (int c = 1; c < f->k; c++) {
        double v = share_value(blocks_seen_whole_share(f, c));
        if (low < 0 || v < low) low = v;
    }
    return low;
}

/* The readable aligned tables: blocks first, then entry-level figures. */
static void write_table(FILE *out, const BlocksRow *rows, int n_rows, RepeatBos bos, RepeatSep sep)
{
    const BlockFigures *first = &rows[0].counted;
    char a[48], b[48];
    fprintf(out, "seqrep blocks: n = %d word tokens, bos %s, sep %s\n", first->n,
            repeat_bos_name(bos), repeat_sep_name(sep));
    fprintf(out, "Blocks are n x n over word tokens; <bos>/<sep> rows and columns are counted\n"
                 "apart (docs/theory.md). Every figure is counted from the model's causal mask");
    if (first->window)
        fprintf(out, "\nwith a sliding window of %d keys: the closed forms of the two tables hold "
                     "without a window\nonly, so the check is the last copy's right context "
                     "(its own closed form).\n\n", first->window);
    else
        fprintf(out, ".\n\n");
    fprintf(out, "mask blocks (k x k grid of n x n blocks)\n");
    fprintf(out, "%5s %5s %6s %7s %7s %7s %6s   %-18s %-18s\n", "r", "k", "T", "full", "causal",
            "masked", "other", "full share (mask)", "closed (k-1)/(k+1)");
    for (int i = 0; i < n_rows; i++) {
        const BlockFigures *f = &rows[i].counted;
        Share got = blocks_full_share(f), want = blocks_full_share_closed(f->k);
        fprintf(out, "%5d %5d %6d %7lld %7lld %7lld %6lld   %-9s %6.1f%%   ", f->r, f->k, f->T,
                (long long)f->full_blocks, (long long)f->causal_blocks,
                (long long)f->masked_blocks, (long long)f->other_blocks,
                fraction_text(a, sizeof a, got), 100.0 * share_value(got));
        if (f->window) fprintf(out, "%-9s %7s\n", "-", "-");
        else fprintf(out, "%-9s %6.1f%%\n", fraction_text(b, sizeof b, want), 100.0 * share_value(want));
    }
    fprintf(out, "\nentry level (visible query-key pairs; \"right\" = key word index > query word index)\n");
    fprintf(out, "%5s %10s %10s %10s %7s %12s %7s %8s %9s %9s %9s\n", "r", "visible", "word-word",
            "right", "share", "full blocks", "share", "sinks", "special-q", "copy 1", "copies 2+");
    for (int i = 0; i < n_rows; i++) {
        const BlockFigures *f = &rows[i].counted;
        double later = later_copies_min_share(f);
        char later_text[16];
        if (later < 0) snprintf(later_text, sizeof later_text, "-");
        else snprintf(later_text, sizeof later_text, "%.1f%%", 100.0 * later);
        fprintf(out, "%5d %10lld %10lld %10lld %6.1f%% %12lld %6.1f%% %8lld %9lld %8.1f%% %9s\n",
                f->r, (long long)f->visible_pairs, (long long)f->word_pairs,
                (long long)f->right_pairs, 100.0 * share_value(blocks_right_share(f)),
                (long long)f->full_block_pairs, 100.0 * share_value(blocks_full_entry_share(f)),
                (long long)f->sink_pairs, (long long)f->special_query_pairs,
                100.0 * share_value(blocks_seen_whole_share(f, 0)), later_text);
    }
    fprintf(out, "\n\"share\" after right: of word-word pairs; after full blocks: of all visible "
                 "pairs.\n\"copy 1\", \"copies 2+\": share of a copy's words that have seen every "
                 "word (lowest over copies 2..k).\n");
    fprintf(out, "\nthe last copy's right context: pairs (i, j > i) where its word i sees word j "
                 "of an earlier copy\n%5s %12s %12s %9s\n", "r", "seen", "closed", "share");
    for (int i = 0; i < n_rows; i++) {
        const BlockFigures *f = &rows[i].counted;
        int64_t all = (int64_t)f->n * (f->n - 1) / 2;
        fprintf(out, "%5d %12lld %12lld %8.1f%%\n", f->r, (long long)f->last_right_seen,
                (long long)rows[i].closed.last_right_seen,
                f->k > 1 && all ? 100.0 * (double)f->last_right_seen / (double)all : 0.0);
    }
    int all_match = 1;
    for (int i = 0; i < n_rows; i++) all_match &= rows[i].matches;
    fprintf(out, "%s\n", all_match ? "Every counted figure equals its closed form."
                                   : "MISMATCH: some counted figure differs from its closed form.");
}

/* One CSV line per r, with a header. */
static void write_csv(FILE *out, const BlocksRow *rows, int n_rows, RepeatBos bos, RepeatSep sep)
{
    fprintf(out, "n,r,k,T,bos,sep,n_special,full_blocks,causal_blocks,masked_blocks,other_blocks,"
                 "full_share,full_share_closed_form,visible_pairs,word_pairs,right_pairs,"
                 "right_share,right_share_closed_form,full_block_pairs,full_entry_share,"
                 "full_entry_share_closed_form,sink_pairs,special_query_pairs,"
                 "seen_whole_first_copy,seen_whole_later_copies_min,seen_whole_counts,"
                 "window,last_right_seen,last_right_seen_closed_form,matches_closed_form\n");
    for (int i = 0; i < n_rows; i++) {
        const BlockFigures *f = &rows[i].counted;
        fprintf(out, "%d,%d,%d,%d,%s,%s,%d,%lld,%lld,%lld,%lld,%.9g,%.9g,%lld,%lld,%lld,%.9g,%.9g,"
                     "%lld,%.9g,%.9g,%lld,%lld,%.9g,",
                f->n, f->r, f->k, f->T, repeat_bos_name(bos), repeat_sep_name(sep), f->n_special,
                (long long)f->full_blocks, (long long)f->causal_blocks,
                (long long)f->masked_blocks, (long long)f->other_blocks,
                share_value(blocks_full_share(f)), share_value(blocks_full_share_closed(f->k)),
                (long long)f->visible_pairs, (long long)f->word_pairs, (long long)f->right_pairs,
                share_value(blocks_right_share(f)),
                share_value(blocks_right_share_closed(f->n, f->k)), (long long)f->full_block_pairs,
                share_value(blocks_full_entry_share(f)),
                share_value(blocks_full_entry_share_closed(f->n, f->k, f->T)),
                (long long)f->sink_pairs, (long long)f->special_query_pairs,
                share_value(blocks_seen_whole_share(f, 0)));
        double later = later_copies_min_share(f);
        if (later >= 0) fprintf(out, "%.9g", later);
        fputc(',', out);
        for (int c = 0; c < f->k; c++) fprintf(out, "%s%lld", c ? ";" : "", (long long)f->seen_whole[c]);
        fprintf(out, ",%d,%lld,%lld,%s\n", f->window, (long long)f->last_right_seen,
                (long long)rows[i].closed.last_right_seen, rows[i].matches ? "true" : "false");
    }
}

/* A JSON array with one object per r. Returns the text (caller frees) or NULL. */
static char *json_text(const BlocksRow *rows, int n_rows, RepeatBos bos, RepeatSep sep)
{
    cJSON *list = cJSON_CreateArray();
    char frac[48];
    for (int i = 0; i < n_rows; i++) {
        const BlockFigures *f = &rows[i].counted;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "n", f->n);
        cJSON_AddNumberToObject(o, "r", f->r);
        cJSON_AddNumberToObject(o, "k", f->k);
        cJSON_AddNumberToObject(o, "T", f->T);
        cJSON_AddStringToObject(o, "bos", repeat_bos_name(bos));
        cJSON_AddStringToObject(o, "sep", repeat_sep_name(sep));
        cJSON_AddNumberToObject(o, "n_special", f->n_special);
        cJSON_AddNumberToObject(o, "full_blocks", (double)f->full_blocks);
        cJSON_AddNumberToObject(o, "causal_blocks", (double)f->causal_blocks);
        cJSON_AddNumberToObject(o, "masked_blocks", (double)f->masked_blocks);
        cJSON_AddNumberToObject(o, "other_blocks", (double)f->other_blocks);
        cJSON_AddNumberToObject(o, "full_share", share_value(blocks_full_share(f)));
        cJSON_AddNumberToObject(o, "full_share_closed_form",
                                share_value(blocks_full_share_closed(f->k)));
        cJSON_AddStringToObject(o, "full_share_fraction",
                                fraction_text(frac, sizeof frac, blocks_full_share(f)));
        cJSON_AddNumberToObject(o, "visible_pairs", (double)f->visible_pairs);
        cJSON_AddNumberToObject(o, "word_pairs", (double)f->word_pairs);
        cJSON_AddNumberToObject(o, "right_pairs", (double)f->right_pairs);
        cJSON_AddNumberToObject(o, "right_share", share_value(blocks_right_share(f)));
        cJSON_AddNumberToObject(o, "right_share_closed_form",
                                share_value(blocks_right_share_closed(f->n, f->k)));
        cJSON_AddNumberToObject(o, "full_block_pairs", (double)f->full_block_pairs);
        cJSON_AddNumberToObject(o, "full_entry_share", share_value(blocks_full_entry_share(f)));
        cJSON_AddNumberToObject(o, "full_entry_share_closed_form",
                                share_value(blocks_full_entry_share_closed(f->n, f->k, f->T)));
        cJSON_AddNumberToObject(o, "sink_pairs", (double)f->sink_pairs);
        cJSON_AddNumberToObject(o, "special_query_pairs", (double)f->special_query_pairs);
        cJSON *counts = cJSON_AddArrayToObject(o, "seen_whole_counts");
        cJSON *shares = cJSON_AddArrayToObject(o, "seen_whole_share");
        for (int c = 0; c < f->k; c++) {
            cJSON_AddItemToArray(counts, cJSON_CreateNumber((double)f->seen_whole[c]));
            cJSON_AddItemToArray(shares,
                                 cJSON_CreateNumber(share_value(blocks_seen_whole_share(f, c))));
        }
        cJSON_AddBoolToObject(o, "matches_closed_form", rows[i].matches);
        cJSON_AddNumberToObject(o, "window", f->window);
        cJSON_AddNumberToObject(o, "last_right_seen", (double)f->last_right_seen);
        cJSON_AddNumberToObject(o, "last_right_seen_closed_form",
                                (double)rows[i].closed.last_right_seen);
        cJSON_AddItemToArray(list, o);
    }
    char *text = cJSON_Print(list);
    cJSON_Delete(list);
    if (!text) return NULL;
    size_t len = strlen(text);
    char *with_newline = realloc(text, len + 2);
    if (!with_newline) {
        free(text);
        return NULL;
    }
    memcpy(with_newline + len, "\n", 2);
    return with_newline;
}

/* Render the rows in the chosen format into a new string (caller frees). */
static char *render(const BlocksRow *rows, int n_rows, RepeatBos bos, RepeatSep sep,
                    OutputFormat format)
{
    if (format == FORMAT_JSON) return json_text(rows, n_rows, bos, sep);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) return NULL;
    if (format == FORMAT_CSV) write_csv(mem, rows, n_rows, bos, sep);
    else write_table(mem, rows, n_rows, bos, sep);
    if (fclose(mem) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* The options of `seqrep blocks`, as given and as parsed. */
typedef struct {
    int n;
    const char *r_text, *bos_text, *sep_text, *format_text, *out, *positions_text;
    RepeatBos bos;
    RepeatSep sep;
    RepeatPositions copy_positions;
    int window;   /* --window: keys of a causal sliding window, 0 = none */
    OutputFormat format;
    int *r_values, n_r; /* the list of --r (owned once parsed) */
} BlocksOptions;

/* --format: "table", "csv" or "json". 0 or 2 after the error line. */
static int parse_format(const char *text, OutputFormat *format)
{
    if (strcmp(text, "table") == 0) *format = FORMAT_TABLE;
    else if (strcmp(text, "csv") == 0) *format = FORMAT_CSV;
    else if (strcmp(text, "json") == 0) *format = FORMAT_JSON;
    else return args_error(CMD, "--format must be table, csv or json, got '%s'", text);
    return 0;
}

/* Parse argv into o and refuse an oversized mask before anything is
 * counted: 0, 1 after --help, 2 after the error line (o->r_values is then
 * freed). */
static int parse_options(int argc, char **argv, BlocksOptions *o)
{
    *o = (BlocksOptions){.bos_text = "none", .sep_text = "none", .format_text = "table",
                         .positions_text = "run"};
    HelpText h = {0};
    ArgSpec specs[] = {
        {.name = "n", .type = ARG_INT, .value = &o->n, .required = 1, .min_int = 1,
         .help = "word tokens in the sentence"},
        {.name = "r", .type = ARG_STRING, .value = &o->r_text, .required = 1,
         .help = "repetitions: R, A..B or a list 0,1,2,4 (k = r+1 copies)"},
        option_bos(&o->bos_text, help_text(&h, "none | once | per-copy (default %s)", o->bos_text)),
        option_sep(&o->sep_text, help_text(&h, "none | token: a <sep> between copies (default %s)",
                                           o->sep_text)),
        option_copy_positions(&o->positions_text),
        {.name = "window", .type = ARG_INT, .value = &o->window, .min_int = 1,
         .help = "a causal sliding window of N keys on the mask (Mistral, Gemma 2 and 3); "
                 "default none"},
        {.name = "format", .type = ARG_STRING, .value = &o->format_text,
         .help = help_text(&h, "table | csv | json (default %s)", o->format_text)},
        {.name = "out", .type = ARG_STRING, .value = &o->out,
         .help = "write to FILE (atomically, with a manifest) instead of stdout"},
    };
    int rc = args_parse(CMD, "--n N --r R|A..B|LIST [--bos none|once|per-copy] [--sep none|token] "
                             "[--window W] [--format table|csv|json] [--out FILE]",
                        specs, ARGS_COUNT(specs), argc, argv, NULL, 0, NULL);
    if (rc) return rc;
    if (option_parse_bos(CMD, o->bos_text, &o->bos)) return 2;
    if (option_parse_sep(CMD, o->sep_text, &o->sep)) return 2;
    if (option_parse_copy_positions(CMD, o->positions_text, &o->copy_positions)) return 2;
    if (parse_format(o->format_text, &o->format)) return 2;
    if (option_parse_r_list(CMD, o->r_text, &o->r_values, &o->n_r)) return 2;
    SrError err;
    for (int i = 0; i < o->n_r; i++)
        if (blocks_check_size(repeat_length(o->n, o->r_values[i], o->bos, o->sep), &err)) {
            const char *why = strncmp(err.msg, "blocks: ", 8) == 0 ? err.msg + 8 : err.msg;
            rc = args_error(CMD, "n = %d, r = %d: %s", o->n, o->r_values[i], why);
            free(o->r_values);
            o->r_values = NULL;
            return rc;
        }
    return 0;
}

/* Count each r from the mask and from the closed forms into rows[0..n_r);
 * *n_done rows hold figures to free. 0 or 2 after the error line. */
static int count_rows(const BlocksOptions *o, BlocksRow *rows, int *n_done)
{
    SrError err;
    for (*n_done = 0; *n_done < o->n_r; (*n_done)++) {
        int r = o->r_values[*n_done];
        BlocksRow *row = &rows[*n_done];
        RepeatLayout lay;
        if (repeat_build(NULL, o->n, r, o->bos, o->sep, 0, &lay, &err)) return args_error(CMD, "%s", err.msg);
        repeat_apply_positions(&lay, o->copy_positions);
        if (blocks_count(&lay, o->window, &row->counted, &err)) {
            repeat_free(&lay);
            return args_error(CMD, "%s", err.msg);
        }
        repeat_free(&lay);
        if (blocks_closed_form(o->n, r, o->bos, o->sep, &row->closed, &err)) {
            blocks_free(&row->counted);
            return args_error(CMD, "%s", err.msg);
        }
        row->closed.window = o->window;
        row->closed.last_right_seen = blocks_last_right_closed(o->n, r, o->bos, o->sep, o->window);
        /* with a window only the last copy's right context has a closed form here */
        row->matches = row->counted.last_right_seen == row->closed.last_right_seen &&
                       (o->window || figures_equal(&row->counted, &row->closed));
    }
    return 0;
}

/* Render the rows and print them, or with --out write them atomically with
 * a manifest beside them. 0 or 2 after the error line. */
static int write_output(int argc, char **argv, const BlocksOptions *o, const BlocksRow *rows)
{
    SrError err;
    char *text = render(rows, o->n_r, o->bos, o->sep, o->format);
    if (!text) return args_error(CMD, "out of memory while formatting");
    int rc = 0;
    if (!o->out) {
        fputs(text, stdout);
    } else if (write_file_atomic(o->out, text, &err)) {
        rc = args_error(CMD, "%s", err.msg);
    } else {
        cJSON *manifest = manifest_begin(argc, argv, 0);
        if (manifest_write(o->out, manifest, NULL, &err)) rc = args_error(CMD, "%s", err.msg);
        cJSON_Delete(manifest);
    }
    free(text);
    return rc;
}

/* `seqrep blocks`: check every r first, then count each from the mask and
 * from the closed forms, and print (or write) them in the chosen format.
 * Exit status 1 when a counted figure differs from its closed form. */
int cmd_blocks(int argc, char **argv)
{
    BlocksOptions o;
    int status = parse_options(argc, argv, &o);
    if (status) return status == 1 ? 0 : status;
    BlocksRow *rows = calloc((size_t)o.n_r > 0 ? (size_t)o.n_r : 1, sizeof *rows);
    if (!rows) {
        free(o.r_values);
        return args_error(CMD, "out of memory");
    }
    if (o.copy_positions != REPEAT_POSITIONS_RUN)
        fprintf(stderr, "seqrep %s: note: with --copy-positions %s %s, but the mask is unchanged (it "
                "depends on the order of the tokens, not on their positions), and so is every count "
                "below\n", CMD, repeat_positions_name(o.copy_positions),
                o.copy_positions == REPEAT_POSITIONS_RESTART ? "every copy's positions start at 0 again"
                                                             : "the later copies are numbered anew");
    int n_done = 0;
    status = count_rows(&o, rows, &n_done);
    if (status == 0) status = write_output(argc, argv, &o, rows);
    for (int i = 0; i < n_done; i++) {
        if (status == 0 && !rows[i].matches) {
            fprintf(stderr, "seqrep %s: r = %d: a counted figure differs from its closed form\n",
                    CMD, rows[i].counted.r);
            status = 1;
        }
        blocks_free(&rows[i].counted);
        blocks_free(&rows[i].closed);
    }
    free(rows);
    free(o.r_values);
    return status;
}
