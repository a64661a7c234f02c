import type { ParameterEntry } from "../../capabilities/database/api/parameter-catalog/types";

/**
 * What the C preprocessor knows when Debian builds PostgreSQL for amd64 (configure --with-icu,
 * --with-lz4, --with-zstd, --with-openssl, --with-gssapi, --with-ldap, --with-pam, --with-systemd,
 * --with-libxml, liburing and libnuma in 18; Linux, 64-bit, no assertions, no EXEC_BACKEND).
 * from-source.ts reads the GUC tables as that build compiles them; the cross-check against the
 * servers' pg_settings is what shows this list is right.
 */

/** Symbols `#ifdef` finds defined (their value does not matter to the tables). */
export const DEFINED = new Set([
  "USE_SSL",
  "USE_OPENSSL",
  "USE_LZ4",
  "USE_ZSTD",
  "USE_ICU",
  "USE_LIBXML",
  "USE_SYSTEMD",
  "USE_LDAP",
  "USE_PAM",
  "ENABLE_GSS",
  "USE_LIBURING",
  "USE_LIBNUMA",
  // storage/aio.h, where USE_LIBURING is (18).
  "IOMETHOD_IO_URING_ENABLED",
  "USE_PREFETCH",
  "USE_POSIX_FADVISE",
  "POSIX_FADV_WILLNEED",
  "HAVE_SYSLOG",
  "HAVE_SYNCFS",
  "HAVE_POSIX_FALLOCATE",
  "HAVE_COPY_FILE_RANGE",
  "HAVE_UNIX_SOCKETS",
  "HAVE_POLL_H",
  "HAVE_FDATASYNC",
  "O_SYNC",
  "O_DSYNC",
  "OPEN_SYNC_FLAG",
  "OPEN_DATASYNC_FLAG",
  "MAP_HUGE_MASK",
  "MAP_HUGE_SHIFT",
  "PG_KRB_SRVTAB",
  // storage/dsm_impl.h defines these for every platform but Windows.
  "USE_DSM_POSIX",
  "USE_DSM_SYSV",
  "USE_DSM_MMAP",
  // pg_config_manual.h defines TRACE_SORT up to 16 (17 dropped the switch, keeping trace_sort).
  "TRACE_SORT",
]);

/**
 * Parameters Debian's own patches add (debian/patches/extension_destdir, up to 17; 18 has
 * upstream's extension_control_path instead). The images the operator runs are built from
 * Debian's packaging, so their servers have it too.
 */
export function debianPatchParameters(major: string): Record<string, ParameterEntry> {
  return Number(major) <= 17 ? { extension_destdir: { type: "string", context: "superuser" } } : {};
}

/**
 * Values of the macros the tables' bounds use that come from configure, <limits.h>, <float.h>
 * or headers whose own #if this reader does not follow. Other macros are read from the headers.
 */
export const CONSTANTS: Record<string, number> = {
  INT_MAX: 2147483647,
  INT_MIN: -2147483648,
  PG_INT32_MAX: 2147483647,
  PG_INT32_MIN: -2147483648,
  LONG_MAX: Number(9223372036854775807n), // as a double, like pg_settings prints it
  DBL_MAX: Number.MAX_VALUE,
  SIZE_MAX: Number(18446744073709551615n),
  BLCKSZ: 8192,
  XLOG_BLCKSZ: 8192,
  RELSEG_SIZE: 131072,
  DEFAULT_XLOG_SEG_SIZE: 16777216,
  SIZEOF_SIZE_T: 8,
  // glibc's <limits.h> (port/pg_iovec.h falls back to 16 without it).
  IOV_MAX: 1024,
  SIZEOF_LONG: 8,
  // guc.h: INT_MAX where size_t is 8 bytes, INT_MAX / 1024 otherwise.
  MAX_KILOBYTES: 2147483647,
  // guc_tables.c/guc.c pick PG_INT64-based limits the same way on 64-bit builds.
  true: 1,
  false: 0,
};
