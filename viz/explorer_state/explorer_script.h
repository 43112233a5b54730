/* explorer_script.h — `seqrep explore --script`: the keys and mouse events
 * a script replays, parsed from its text. Pure: no SDL. */
#ifndef SEQREP_VIZ_EXPLORER_SCRIPT_H
#define SEQREP_VIZ_EXPLORER_SCRIPT_H

#include "base/status.h"
#include "explorer_state/explorer_keys.h"

typedef enum {
    SCRIPT_KEY = 0,     /* a key press                                      */
    SCRIPT_HOVER = 1,   /* <hover X Y>: move the mouse to pixel (X, Y)      */
    SCRIPT_CLICK = 2,   /* <click X Y>: click at pixel (X, Y)               */
    SCRIPT_SHOT = 3,    /* <shot>: save the window as seen, overlays included */
    SCRIPT_RESIZE = 4,  /* <resize WxH>: resize the window                  */
    SCRIPT_WAIT = 5     /* <wait MS>: pause MS milliseconds, as a person between keys */
} ScriptEventKind;

typedef struct {
    ScriptEventKind kind;
    int key;      /* SCRIPT_KEY */
    int x, y;     /* HOVER, CLICK: pixel; RESIZE: width, height; WAIT: x = milliseconds */
} ScriptEvent;

/* Parse a --script string. Characters are keys; spaces between them are
 * ignored (the space bar is <space>); names in angle brackets are special
 * keys and events: <left> <right> <up> <down> <pgup> <pgdn> <home> <end>
 * <esc> <space> <lt> (the '<' key), <hover X Y>, <click X Y>, <shot>,
 * <resize WxH>, <wait MS> (0..60000). *events is malloc'd (caller frees). Errors name the
 * position: "--script: unknown key name '<foo>' at character 5". */
int explorer_script_parse(const char *text, ScriptEvent **events, int *n_events, SrError *err);

/* The script name of a key: "a", "<left>", "<space>", "<lt>"… into buf
 * (at least 8 bytes); returns buf. */
const char *explorer_script_key_name(int key, char *buf, size_t cap);

#endif
