/* tokenizer_specials.c — the special ids of a tokenizer (tokenizer.h
 * tokenizer_specials): the house tokenizers' fixed ids, or those a Hugging
 * Face tokenizer's post-processor and tokenizer_config.json name. */
#include "text/tokenizer.h"

#include "text/hf/tokenizer_json.h"

TokenizerSpecials tokenizer_specials(const Tokenizer *tok)
{
    if (!tok->hf) return (TokenizerSpecials){TOK_BOS, TOK_EOS, TOK_SEP, TOK_PAD};
    TokenizerSpecials s = {hf_bos_id(tok->hf), hf_named_id(tok->hf, HF_NAMED_EOS),
                           hf_named_id(tok->hf, HF_NAMED_SEP), hf_named_id(tok->hf, HF_NAMED_PAD)};
    if (s.eos < 0) s.eos = hf_eos_id(tok->hf);
    if (s.sep < 0) s.sep = s.eos;
    if (s.pad < 0) s.pad = s.eos >= 0 ? s.eos : 0;
    return s;
}
