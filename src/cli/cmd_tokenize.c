/* cmd_tokenize.c — `seqrep tokenize TOKENIZER`: encode text (or the words of
 * a sentence, each in context) with a Hugging Face tokenizer.json and print
 * the ids, their tokens and the decoded text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "options/args.h"
#include "text/tokenizer_from_hf.h"

static const char *CMD = "tokenize";

/* Print "name id id ..." for ids[0..n). */
static void print_ids(const char *name, const int *ids, long n)
{
    printf("%s", name);
    for (long i = 0; i < n; i++) printf(" %d", ids[i]);
    printf("\n");
}

/* --text: ids (with the tokenizer's special tokens unless no_specials),
 * tokens, decoded text. 0 or 2. */
static int tokenize_text(const Tokenizer *tok, const char *text, int no_specials)
{
    long n = tokenizer_encode(tok, text, !no_specials, NULL, 0);
    int *ids = n >= 0 ? malloc(sizeof(int) * (size_t)(n + 1)) : NULL;
    if (!ids) return args_error(CMD, "out of memory");
    tokenizer_encode(tok, text, !no_specials, ids, n);
    print_ids("ids", ids, n);
    printf("tokens");
    for (long i = 0; i < n; i++) printf(" %s", tokenizer_word(tok, ids[i]));
    char *dec = tokenizer_decode(tok, ids, n, TOKENIZER_DECODE_PLAIN);
    printf("\ndecoded %s\n", dec ? dec : "");
    free(dec);
    free(ids);
    return 0;
}

/* --words: one line per word (split at spaces): its index, first piece and
 * piece ids, cut in context as the labelling code cuts it. 0 or 2. */
static int tokenize_words(const Tokenizer *tok, const char *words)
{
    char *copy = strdup(words), *save = NULL;
    if (!copy) return args_error(CMD, "out of memory");
    int w = 0, at = 0, ids[256];
    for (char *word = strtok_r(copy, " ", &save); word; word = strtok_r(NULL, " ", &save), w++) {
        int n = tokenizer_word_pieces_at(tok, word, w, ids, 256);
        if (n < 0 || n > 256) {
            free(copy);
            return args_error(CMD, "word %d is too long (%d pieces)", w + 1, n);
        }
        printf("word %d %s first %d", w, word, at);
        print_ids(" pieces", ids, n);
        at += n;
    }
    free(copy);
    return 0;
}

int cmd_tokenize(int argc, char **argv)
{
    const char *text = NULL, *words = NULL, *path = NULL;
    int no_specials = 0, npos = 0;
    ArgSpec specs[] = {
        {.name = "text", .type = ARG_STRING, .value = &text, .help = "text to encode"},
        {.name = "words", .type = ARG_STRING, .value = &words,
         .help = "a sentence's words, separated by spaces, each cut in context"},
        {.name = "no-specials", .type = ARG_FLAG, .value = &no_specials,
         .help = "with --text: without the special tokens (BOS) the tokenizer adds"},
    };
    int rc = args_parse(CMD, "TOKENIZER (--text TEXT | --words 'W1 W2 ...') [--no-specials]\n"
                        "  TOKENIZER: a Hugging Face tokenizer.json or its folder (docs/models.md)",
                        specs, ARGS_COUNT(specs), argc, argv, &path, 1, &npos);
    if (rc) return rc == 1 ? 0 : rc;
    if (npos != 1) return args_error(CMD, "expects one tokenizer.json or folder (see --help)");
    if (!text == !words) return args_error(CMD, "give exactly one of --text and --words");
    Tokenizer tok;
    SrError err;
    if (tokenizer_from_hf(&tok, path, &err)) return args_error(CMD, "%s", err.msg);
    rc = text ? tokenize_text(&tok, text, no_specials) : tokenize_words(&tok, words);
    tokenizer_free(&tok);
    return rc;
}
