/* sdl_calls.c — SDL2 loaded with dlopen and its functions looked up by name
 * into SdlCalls (sdl_calls.h says why it is not linked). */
#include "window/sdl_calls.h"

#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

/* The file name of SDL2's shared library, as its runtime package installs it. */
#ifdef __APPLE__
#define SDL2_LIBRARY "libSDL2-2.0.0.dylib"
#else
#define SDL2_LIBRARY "libSDL2-2.0.so.0"
#endif

/* Each function's name in the library and its pointer's place in SdlCalls. */
static const struct {
    const char *name;
    size_t at;
} CALLS[] = {
    {"SDL_Init", offsetof(SdlCalls, Init)},
    {"SDL_Quit", offsetof(SdlCalls, Quit)},
    {"SDL_GetError", offsetof(SdlCalls, GetError)},
    {"SDL_RegisterEvents", offsetof(SdlCalls, RegisterEvents)},
    {"SDL_PushEvent", offsetof(SdlCalls, PushEvent)},
    {"SDL_PollEvent", offsetof(SdlCalls, PollEvent)},
    {"SDL_WaitEventTimeout", offsetof(SdlCalls, WaitEventTimeout)},
    {"SDL_Delay", offsetof(SdlCalls, Delay)},
    {"SDL_StartTextInput", offsetof(SdlCalls, StartTextInput)},
    {"SDL_CreateWindow", offsetof(SdlCalls, CreateWindow)},
    {"SDL_DestroyWindow", offsetof(SdlCalls, DestroyWindow)},
    {"SDL_SetWindowTitle", offsetof(SdlCalls, SetWindowTitle)},
    {"SDL_SetWindowSize", offsetof(SdlCalls, SetWindowSize)},
    {"SDL_GetWindowSurface", offsetof(SdlCalls, GetWindowSurface)},
    {"SDL_UpdateWindowSurface", offsetof(SdlCalls, UpdateWindowSurface)},
    {"SDL_CreateRGBSurfaceWithFormatFrom", offsetof(SdlCalls, CreateRGBSurfaceWithFormatFrom)},
    {"SDL_SetSurfaceBlendMode", offsetof(SdlCalls, SetSurfaceBlendMode)},
    {"SDL_UpperBlit", offsetof(SdlCalls, UpperBlit)},
    {"SDL_FreeSurface", offsetof(SdlCalls, FreeSurface)},
};

int sdl_calls_load(SdlCalls *sdl, SrError *err)
{
    memset(sdl, 0, sizeof *sdl);
    sdl->library = dlopen(SDL2_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!sdl->library)
        return sr_fail(err, "cannot open a window: SDL2 is not loaded (%s; Debian's package is libsdl2-2.0-0)",
                       dlerror());
    for (size_t i = 0; i < sizeof CALLS / sizeof CALLS[0]; i++) {
        void *f = dlsym(sdl->library, CALLS[i].name);
        if (!f) {
            sr_fail(err, "cannot open a window: %s has no %s", SDL2_LIBRARY, CALLS[i].name);
            sdl_calls_unload(sdl);
            return -1;
        }
        /* POSIX: a function's address as dlsym returns it, stored as the pointer it is */
        memcpy((char *)sdl + CALLS[i].at, &f, sizeof f);
    }
    return 0;
}

void sdl_calls_unload(SdlCalls *sdl)
{
    if (sdl->library) dlclose(sdl->library);
    memset(sdl, 0, sizeof *sdl);
}
