/* hf_config_fields.h — reading one typed field of a Hugging Face config.json
 * object, with the default Hugging Face uses when the field is absent or
 * null; errors name the file and the field. Shared by hf_config.c and
 * hf_config_gemma.c. */
#ifndef SEQREP_HF_CONFIG_FIELDS_H
#define SEQREP_HF_CONFIG_FIELDS_H

#include <cJSON.h>

#include "base/status.h"

/* The field key of o, or NULL when it is absent or null (the default applies). */
const cJSON *hf_field(const cJSON *o, const char *key);

/* Integer field key of o into *v; def when absent or null (def < 0: required). */
int hf_get_int(const char *file, const cJSON *o, const char *key, int def, int *v, SrError *err);

/* Real field key of o into *v; def when absent or null. */
int hf_get_float(const char *file, const cJSON *o, const char *key, double def, float *v,
                 SrError *err);

/* Boolean field key of o into *v; def when absent or null. */
int hf_get_bool(const char *file, const cJSON *o, const char *key, int def, int *v, SrError *err);

/* "layer_types" (one "sliding_attention" or "full_attention" per layer, at
 * most 64 layers) as bits of *sliding (bit l: layer l slides): 1 when the
 * config lists them, 0 when it has no list, -1 on error. */
int hf_get_layer_types(const char *file, const cJSON *o, int n_layers, unsigned long long *sliding,
                       SrError *err);

#endif
