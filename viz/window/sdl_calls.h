/* sdl_calls.h — the calls of SDL2 the explorer's window makes, loaded from
 * the library (dlopen) when a window opens, not linked into seqrep: every
 * other command then starts without SDL2 and the forty libraries it pulls in
 * (sound, D-Bus, codecs), which cost each start of seqrep about 10 ms (13 ms
 * under ASan), a thousand starts in a run of the e2e suites. SDL2's header
 * still gives the types, constants and event layout. */
#ifndef SEQREP_VIZ_WINDOW_SDL_CALLS_H
#define SEQREP_VIZ_WINDOW_SDL_CALLS_H

#include <SDL.h>

#include "base/status.h"

/* One pointer per SDL2 function the window calls (SDL_X is sdl->X). */
typedef struct {
    void *library; /* dlopen's handle, NULL when not loaded */
    int (*Init)(Uint32 flags);
    void (*Quit)(void);
    const char *(*GetError)(void);
    Uint32 (*RegisterEvents)(int n);
    int (*PushEvent)(SDL_Event *event);
    int (*PollEvent)(SDL_Event *event);
    int (*WaitEventTimeout)(SDL_Event *event, int ms);
    void (*Delay)(Uint32 ms);
    void (*StartTextInput)(void);
    SDL_Window *(*CreateWindow)(const char *title, int x, int y, int w, int h, Uint32 flags);
    void (*DestroyWindow)(SDL_Window *window);
    void (*SetWindowTitle)(SDL_Window *window, const char *title);
    void (*SetWindowSize)(SDL_Window *window, int w, int h);
    SDL_Surface *(*GetWindowSurface)(SDL_Window *window);
    int (*UpdateWindowSurface)(SDL_Window *window);
    SDL_Surface *(*CreateRGBSurfaceWithFormatFrom)(void *pixels, int w, int h, int depth, int pitch,
                                                   Uint32 format);
    int (*SetSurfaceBlendMode)(SDL_Surface *surface, SDL_BlendMode mode);
    int (*UpperBlit)(SDL_Surface *src, const SDL_Rect *src_rect, SDL_Surface *dst, SDL_Rect *dst_rect);
    void (*FreeSurface)(SDL_Surface *surface);
} SdlCalls;

/* Load SDL2 and fill every pointer of *sdl. 0, or -1 with err naming the
 * library and what failed (SDL2 not installed, a function missing). */
int sdl_calls_load(SdlCalls *sdl, SrError *err);

/* Unload SDL2 (after SDL_Quit); *sdl is all NULL after. */
void sdl_calls_unload(SdlCalls *sdl);

#endif
