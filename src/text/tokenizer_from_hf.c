/* tokenizer_from_hf.c — wrapping a Hugging Face tokenizer in a Tokenizer. */
#include "text/tokenizer_from_hf.h"

#include <stdlib.h>
#include <string.h>

#include "text/hf/tokenizer_json.h"

int tokenizer_from_hf(Tokenizer *tok, const char *path, SrError *err)
{
    memset(tok, 0, sizeof *tok);
    HfTokenizer *hf = hf_tokenizer_load(path, err);
    if (!hf) return -1;
    int n = hf_vocab_size(hf);
    char **words = calloc((size_t)(n > 0 ? n : 1), sizeof *words);
    for (int id = 0; words && id < n; id++) {
        const char *s = hf_token_text(hf, id);
        if (!(words[id] = strdup(s ? s : ""))) {
            for (int k = 0; k < id; k++) free(words[k]);
            free(words);
            words = NULL;
        }
    }
    if (!words) {
        hf_free(hf);
        return sr_fail(err, "%s: out of memory", path);
    }
    tok->hf = hf;
    tok->words = words;
    tok->n_words = n;
    return 0;
}
