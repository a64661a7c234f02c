/** The Database kind's identity. Kept free of imports so pure modules (builders) can use it cheaply. */
export const GROUP = "pgkeeper.dev";
export const VERSION = "v1alpha1";
export const API_VERSION = `${GROUP}/${VERSION}`;
export const KIND = "Database";
export const PLURAL = "databases";
export const SINGULAR = "database";
export const SHORT_NAMES = ["pgdb"];
