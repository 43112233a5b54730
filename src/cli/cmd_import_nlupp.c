/* cmd_import_nlupp.c — `seqrep import-nlupp DIR --out-dir OUT`: convert the
 * NLU++ folds (character spans) to IOB2 CoNLL over word tokens with the
 * paper's split: OUT/train.conll, OUT/dev.conll, OUT/test.conll (rules in
 * data/nlupp.h). On success each misaligned, overlapping or empty span is
 * reported on stderr, then one summary line per split; on bad input there is
 * only the one error line. */
#include <stdio.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "data/nlupp.h"
#include "options/args.h"
#include "options/rows.h"

static const char *CMD = "import-nlupp";

/* Parse argv: the NLU++ directory, --out-dir and --quiet. 0, 1 after --help,
 * 2 after the error line. */
static int parse_options(int argc, char **argv, const char **dir, const char **out_dir, int *quiet)
{
    ArgSpec specs[] = {
        {.name = "out-dir", .type = ARG_STRING, .value = out_dir, .required = 1,
         .help = "directory for train.conll, dev.conll, test.conll"},
        option_quiet(quiet, "do not list each misaligned or dropped span (counts only)"),
    };
    int npos = 0;
    int rc = args_parse(CMD, "DIR --out-dir OUT [--quiet]", specs, ARGS_COUNT(specs), argc, argv,
                        dir, 1, &npos);
    if (rc) return rc;
    if (npos != 1) return args_error(CMD, "expects one NLU++ directory (with banking/ and hotels/)");
    return 0;
}

/* One summary line per split on stderr. */
static void print_counts(const char *out_dir, const NluppCounts counts[NLUPP_N_SPLITS])
{
    for (int k = 0; k < NLUPP_N_SPLITS; k++) {
        const NluppCounts *c = &counts[k];
        fprintf(stderr, "%s/%s.conll: %ld examples, %ld tokens, %ld spans; %ld misaligned "
                "(labelled over whole tokens), %ld overlapping (dropped), %ld empty spans "
                "(dropped), %ld examples without tokens (skipped)\n", out_dir, nlupp_split_name(k),
                c->examples, c->tokens, c->spans, c->misaligned, c->overlapping, c->empty_spans,
                c->empty_examples);
    }
}

/* `seqrep import-nlupp`: options, the import (its span reports held back),
 * then the reports and the counts. */
int cmd_import_nlupp(int argc, char **argv)
{
    const char *dir = NULL, *out_dir = NULL;
    int quiet = 0;
    int rc = parse_options(argc, argv, &dir, &out_dir, &quiet);
    if (rc) return rc == 1 ? 0 : rc;
    /* The per-span reports are held back until the import has succeeded, so
     * that bad input gives exactly one line on stderr. */
    char *report = NULL;
    size_t report_len = 0;
    FILE *log = quiet ? NULL : open_memstream(&report, &report_len);
    SrError err;
    NluppCounts counts[NLUPP_N_SPLITS];
    int failed = nlupp_import(dir, out_dir, counts, log, &err);
    if (log) fclose(log);
    if (failed) {
        free(report);
        return args_error(CMD, "%s", err.msg);
    }
    if (report) fwrite(report, 1, report_len, stderr);
    free(report);
    print_counts(out_dir, counts);
    return 0;
}
