/**
 * What bench/fuzz found admitted (bench/fuzz/README.md, seed/case in each id): kept here so each
 * stays refused.
 */
import { InvalidCase, params, scheduling, spec, STORE } from "./types";

const P = "spec.postgresql.parameters";
const AFFINITY = "spec.scheduling.affinity";
const NBSP = "\u00a0";

export const FOUND_BY_FUZZ: InvalidCase[] = [
  {
    id: "fuzz-1-489-empty-node-selector-terms",
    spec: scheduling({
      affinity: {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } },
      },
    }),
    field: `${AFFINITY}.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`,
  },
  {
    id: "fuzz-1-4777-pod-affinity-namespace",
    spec: scheduling({
      affinity: {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { topologyKey: "kubernetes.io/hostname", namespaces: ["Bad_NS"] },
          ],
        },
      },
    }),
    field: `${AFFINITY}.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespaces`,
  },
  { id: "fuzz-2-8739-enum-prefix", spec: params({ huge_pages: "t" }), field: `${P}[huge_pages]` },
  {
    id: "fuzz-1-200-no-break-space",
    spec: params({ checkpoint_timeout: `${NBSP}300` }),
    field: `${P}[checkpoint_timeout]`,
  },
  {
    id: "fuzz-2-4907-octal-then-fraction",
    spec: params({ effective_cache_size: "08.5" }),
    field: `${P}[effective_cache_size]`,
  },
  { id: "fuzz-1-4432-datestyle", spec: params({ DateStyle: "30s" }), field: `${P}[DateStyle]` },
  { id: "datestyle-conflict", spec: params({ DateStyle: "ISO, SQL" }), field: `${P}[DateStyle]` },
  { id: "bool-with-blank", spec: params({ enable_seqscan: " on" }), field: `${P}[enable_seqscan]` },
  { id: "fuzz-1-24-image-beta", spec: spec({ image: "postgres:16beta1" }), field: "spec.image" },
  { id: "fuzz-1-2369-image-old-major", spec: spec({ image: "postgres:9.6" }), field: "spec.image" },
  {
    id: "fuzz-1-1365-secret-name",
    spec: spec({ backup: { objectStore: { ...STORE, credentials: { secretName: "a-.b" } } } }),
    field: "spec.backup.objectStore.credentials.secretName",
  },
  {
    id: "fuzz-1-1128-secret-key",
    spec: spec({
      backup: {
        objectStore: { ...STORE, credentials: { ...STORE.credentials, accessKeyIdKey: ".." } },
      },
    }),
    field: "spec.backup.objectStore.credentials.accessKeyIdKey",
  },
  {
    id: "fuzz-1-1752-endpoint-empty-label",
    spec: spec({ backup: { objectStore: { ...STORE, endpoint: "host..name" } } }),
    field: "spec.backup.objectStore.endpoint",
  },
  {
    id: "fuzz-2-1504-endpoint-long-label",
    spec: spec({ backup: { objectStore: { ...STORE, endpoint: `${"a".repeat(64)}.example` } } }),
    field: "spec.backup.objectStore.endpoint",
  },
  {
    id: "fuzz-1-4655-bucket-reserved",
    spec: spec({ backup: { objectStore: { ...STORE, bucket: "xn--bucket" } } }),
    field: "spec.backup.objectStore.bucket",
  },
  {
    id: "fuzz-2-8388-bucket-reserved-suffix",
    spec: spec({ backup: { objectStore: { ...STORE, bucket: "bucket-s3alias" } } }),
    field: "spec.backup.objectStore.bucket",
  },
];
