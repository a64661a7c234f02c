/**
 * Which PostgreSQL source each major's catalog is read from (from-source.ts), and what later
 * minor releases added to it.
 */

export interface SourceTree {
  /** An unpacked tree (hack/parameter-catalog/get-sources.sh) … */
  tree?: string;
  /** … or a commit of a bare git mirror (the fetch tool's). */
  git?: string;
  commit?: string;
  /** Said in the catalog's `source`. */
  origin: string;
}

const SRC = process.env.PGKEEPER_SRC_ROOT ?? "/var/tmp/pgkeeper-src";
const MIRROR = process.env.PGKEEPER_MIRROR_ROOT ?? "/work/.mirror";

export const SOURCES: Record<string, SourceTree> = {
  // No Debian suite the mirror serves has a 14 or 16 (bullseye has 13, bookworm 15, trixie 17,
  // forky 18), nor their source; these are imports of the upstream release tarballs on GitHub
  // (each import's first commit, before the importers' own changes, which leave the GUC tables
  // alone), brought here by the fetch tool. The catalog names the table's git blob id, which
  // `git rev-parse REL_14_13:src/backend/utils/misc/guc.c` (…REL_16_2…guc_tables.c) in
  // postgres/postgres must give.
  "14": {
    git: `${MIRROR}/xlab-uiuc+postgresql-14.13/repo`,
    commit: "9b67551ca62d12fde3da55635e0e684e2e88ed3e",
    origin:
      "the 14.13 release tarball as imported in github.com/xlab-uiuc/postgresql-14.13 commit 9b67551",
  },
  "16": {
    git: `${MIRROR}/LimeMun+postgresql-16.2/repo`,
    commit: "f6e9aa693dca4bcbb913ca629ce2ec887f31d2b3",
    origin:
      "the 16.2 release tarball as imported in github.com/LimeMun/postgresql-16.2 commit f6e9aa6",
  },
  "15": {
    tree: `${SRC}/postgresql-15.18`,
    origin: "Debian 12's postgresql-15_15.18.orig.tar.bz2 (the upstream release tarball)",
  },
  "18": {
    tree: `${SRC}/postgresql-18.6`,
    origin: "Debian forky's postgresql-18_18.6.orig.tar.bz2 (the upstream release tarball)",
  },
};

/**
 * Parameters later minor releases of a major added, after the release its source is: PostgreSQL
 * backports them to every supported branch with the same definition, so the entry is taken from
 * another major's catalog (from a server) that has it. Found by comparing the catalogs: a name
 * both pg15.json (15.18) and pg17.json (17.12) have but the older source lacks.
 */
export const LATER_MINORS: Record<string, { name: string; release: string; from: string }[]> = {
  // CVE-2024-7348 (pg_dump), in 12.20, 13.16, 14.13, 15.8 and 16.4.
  "16": [{ name: "restrict_nonsystem_relation_kind", release: "16.4", from: "15" }],
};
