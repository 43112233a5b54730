/* run_settings.h — the settings of a run that a resumed run must keep
 * (`train-lm --save-every` / `--resume`): a JSON object whose values are all
 * text, keyed by option name ("seq-len": "512", "corpus": "checksum
 * 0123456789abcdef"), stored in the training state (formats/train_state.h)
 * and compared with the resumed run's own. */
#ifndef SEQREP_RUN_SETTINGS_H
#define SEQREP_RUN_SETTINGS_H

#include <cJSON.h>

/* Add "key": text. */
void run_settings_add_text(cJSON *settings, const char *key, const char *text);

/* Add "key": the integer v as text. */
void run_settings_add_int(cJSON *settings, const char *key, long v);

/* Add "key": the float v as text that reads back exactly (%.9g). */
void run_settings_add_float(cJSON *settings, const char *key, float v);

/* Add "key": "checksum HEX" of the file at path (FNV-1a 64), "none" when
 * path is NULL, "unreadable" when it cannot be read. */
void run_settings_add_file(cJSON *settings, const char *key, const char *path);

/* The setting key as text, or NULL when it is absent or not text. */
const char *run_settings_get(const cJSON *settings, const char *key);

/* The first setting in which now and saved differ, leaving out the n_free
 * keys of free (those a resumed run may change): a key of now whose saved
 * text is absent or another, then a key of saved that now lacks. NULL when
 * they agree. */
const char *run_settings_first_change(const cJSON *saved, const cJSON *now,
                                      const char *const *free, int n_free);

#endif
