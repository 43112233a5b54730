/* hf_tokenizer.c — STUB, to be replaced when tokenizer.json support is merged
 * (see hf_tokenizer.h): it refuses every folder. */
#include "formats/hf_tokenizer.h"

int hf_load_tokenizer(const char *dir, Tokenizer *out, SrError *err)
{
    (void)out;
    return sr_fail(err, "%s/tokenizer.json: tokenizer.json support: not yet", dir);
}
