/* Test-only stand-in for bcryptprimitives.dll under Wine 8 (Debian 12).
 *
 * Rust's standard library takes its random bytes from
 * bcryptprimitives.dll!ProcessPrng since Rust 1.78. Windows 10 and 11 have
 * it; Wine gained it only in Wine 9, so under Debian 12's Wine 8 a Rust
 * program does not even load. scripts/test-windows.sh builds this file with
 * mingw and puts it in the test prefix's system32, never in an installer or
 * the portable zip. It forwards to RtlGenRandom (advapi32's
 * SystemFunction036), which every Windows and Wine has.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
