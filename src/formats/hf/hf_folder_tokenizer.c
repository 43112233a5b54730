/* hf_folder_tokenizer.c — a model folder's tokenizer (see hf_folder_tokenizer.h). */
#include "formats/hf/hf_folder_tokenizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "text/tokenizer_from_hf.h"

int hf_load_tokenizer(const char *dir, int vocab_size, Tokenizer *out, SrError *err)
{
    memset(out, 0, sizeof *out);
    size_t n = strlen(dir) + sizeof "/tokenizer.json";
    char *path = malloc(n);
    if (!path) return sr_fail(err, "%s: out of memory", dir);
    snprintf(path, n, "%s/tokenizer.json", dir);
    struct stat st;
    int rc = 0;
    if (stat(path, &st) != 0)
        rc = sr_fail(err, "%s: missing; this command needs the folder's tokenizer (tokenizer.json "
                     "of the Hugging Face model)", path);
    else if (tokenizer_from_hf(out, path, err))
        rc = -1;
    else {
        int plain = vocab_size; /* the first id past the embedding that is not special */
        while (plain < out->n_words && tokenizer_is_special(out, plain)) plain++;
        if (plain < out->n_words) {
            rc = sr_fail(err, "%s: %d token ids, but config.json's vocab_size is %d and id %d "
                         "'%s' is not a special token (ids beyond the embedding)", path,
                         out->n_words, vocab_size, plain, tokenizer_word(out, plain));
            tokenizer_free(out);
        } else if (out->n_words > vocab_size) {
            out->embedded = vocab_size; /* the special ones past it must not reach the model */
        }
    }
    free(path);
    return rc;
}
