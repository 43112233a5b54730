/* explorer_page_walk.h — the states of the page of explore --html and the
 * keys between them (explorer_page_walk.c): every state the window's keys
 * reach from the first one within what the page exports, the frame each
 * shows (states that draw the same figure share it) and, per state and key,
 * the state it leads to and the message it leaves. */
#ifndef SEQREP_VIZ_EXPLORER_PAGE_WALK_H
#define SEQREP_VIZ_EXPLORER_PAGE_WALK_H

#include "base/status.h"
#include "explorer/explorer_window.h"
#include "text/string_table.h"

/* A key of the page: the explorer's key and the name a browser gives it
 * (KeyboardEvent.key). */
typedef struct {
    int key;
    const char *name;
} PageKey;

#define PAGE_MAX_KEYS 64

typedef struct {
    PageKey keys[PAGE_MAX_KEYS];
    int n_keys;
    ExplorerState first;      /* the first state: what the page holds is fixed by it */
    StringTable state_names;  /* a state's name (page_state_name) -> its number */
    ExplorerState *states;    /* (n) the states, message cleared              */
    int *next;                /* (n, n_keys) the state a key leads to, -1: not exported */
    int *message;             /* (n, n_keys) the message it leaves, -1: none  */
    int *frame;               /* (n) the frame a state shows                  */
    int n, cap;
    StringTable messages;     /* the messages, numbered                       */
    StringTable frame_names;  /* a frame's plot command (and roles) -> its number */
    int *frame_state;         /* (frames) the first state showing each frame  */
    int frame_cap;
} PageWalk;

/* Walk the keys from e's state over what o exports; e is open (explorer_open),
 * its worker not needed. 0, or -1 with err (out of memory, or a plot command
 * that does not fit). */
int page_walk(PageWalk *w, Explorer *e, SrError *err);

/* The frames found: w->frame_names.n. */

void page_walk_free(PageWalk *w);

#endif
