/**
 * The passwords in use per Database, as this leader last applied them (passwords.ts puts a
 * Secret deleted by hand back from them). Forgotten with the Database and when leadership is
 * lost: another leader may rotate a password meanwhile, and a stale one put back would lock
 * every client out.
 */
import type { Passwords } from "../specs";

export class PasswordMemory {
  private readonly databases = new Map<string, Passwords>();

  of(key: string): Passwords | undefined {
    return this.databases.get(key);
  }

  remember(key: string, passwords: Passwords): void {
    this.databases.set(key, passwords);
  }

  forget(key: string): void {
    this.databases.delete(key);
  }

  clear(): void {
    this.databases.clear();
  }
}
