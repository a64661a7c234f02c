/**
 * The passwords in use per Database, as this leader last applied them (passwords.ts puts a
 * Secret deleted by hand back from them). Forgotten with the Database and when leadership is
 * lost: another leader may rotate a password meanwhile, and a stale one put back would lock
 * every client out.
 */
import type { Passwords } from "../specs";
import { PerDatabase } from "../lib/per-database";

export class PasswordMemory extends PerDatabase<Passwords> {}
