/**
 * What one leadership remembers per Database (`namespace/name`), forgotten with the Database and
 * when leadership is lost (reconcile/deps.ts): the shape every such memory shares.
 */
export class PerDatabase<T> {
  private readonly databases = new Map<string, T>();

  of(key: string): T | undefined {
    return this.databases.get(key);
  }

  remember(key: string, value: T): void {
    this.databases.set(key, value);
  }

  forget(key: string): void {
    this.databases.delete(key);
  }

  clear(): void {
    this.databases.clear();
  }

  /** How many Databases are remembered (for tests of forgetting). */
  get size(): number {
    return this.databases.size;
  }
}
