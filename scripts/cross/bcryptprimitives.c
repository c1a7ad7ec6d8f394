/* For running zcp's Windows build under wine older than 9.0 (cross-check only, never
 * shipped). Rust's standard library asks bcryptprimitives.dll for random bytes
 * (ProcessPrng); wine 8 has no such DLL, so this one answers from RtlGenRandom. */
#include <windows.h>
#include <ntsecapi.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!RtlGenRandom(data, chunk)) return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
