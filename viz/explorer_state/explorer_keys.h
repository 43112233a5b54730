/* explorer_keys.h — the explorer's keys (listed in explorer.h and by the
 * `?` overlay): what each one does to the view state. Pure: no SDL. */
#ifndef SEQREP_VIZ_EXPLORER_KEYS_H
#define SEQREP_VIZ_EXPLORER_KEYS_H

#include "explorer_state/explorer_state.h"

/* A key is its ASCII character (32..126) or one of these. */
enum {
    EXPLORER_KEY_LEFT = 256,
    EXPLORER_KEY_RIGHT,
    EXPLORER_KEY_UP,
    EXPLORER_KEY_DOWN,
    EXPLORER_KEY_PGUP,
    EXPLORER_KEY_PGDN,
    EXPLORER_KEY_HOME,
    EXPLORER_KEY_END,
    EXPLORER_KEY_ESC
};

/* Apply one key: returns the EXPLORER_* bits for the caller and writes a
 * message into s->message when the key was refused or needs explaining. */
int explorer_apply_key(ExplorerState *s, int key);

/* The key-help text (lines separated by '\n'). */
const char *explorer_help_text(void);

#endif
