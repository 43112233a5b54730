/* tokenizer_specials.c — the special ids of a tokenizer (tokenizer.h
 * tokenizer_specials): the house tokenizers' fixed ids, or those a Hugging
 * Face tokenizer's post-processor and tokenizer_config.json name; whether an
 * id is one of its special added tokens, and ids past a model's embedding. */
#include "text/tokenizer.h"

#include "text/hf/tokenizer_json.h"

TokenizerSpecials tokenizer_specials(const Tokenizer *tok)
{
    if (!tok->hf)
        return (TokenizerSpecials){.bos = TOK_BOS, .eos = TOK_EOS, .sep = TOK_SEP, .pad = TOK_PAD};
    TokenizerSpecials s = {.bos = hf_bos_id(tok->hf), .eos = hf_named_id(tok->hf, HF_NAMED_EOS),
                           .sep = hf_named_id(tok->hf, HF_NAMED_SEP),
                           .pad = hf_named_id(tok->hf, HF_NAMED_PAD)};
    if (s.eos < 0) s.eos = hf_eos_id(tok->hf);
    if (s.sep < 0) s.sep = s.eos;
    if (s.pad < 0) s.pad = s.eos >= 0 ? s.eos : 0;
    return s;
}

int tokenizer_is_special(const Tokenizer *tok, int id)
{
    return tok->hf ? hf_is_special(tok->hf, id) : 0;
}

int tokenizer_check_embedded(const Tokenizer *tok, const int *ids, long n, const char *where,
                             SrError *err)
{
    for (long i = 0; tok->embedded > 0 && i < n; i++)
        if (ids[i] >= tok->embedded)
            return sr_fail(err, "%s: token '%s' (id %d) has no row in the model's embedding "
                           "(vocab_size %d)", where, tokenizer_word(tok, ids[i]), ids[i],
                           tok->embedded);
    return 0;
}
