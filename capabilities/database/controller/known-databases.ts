/**
 * The Databases the watch delivered, with the generation last seen: the resync list (no LIST
 * call needed), and how a spec change (a new generation, which cuts through a retry backoff) is
 * told from our own status writes (which must not).
 */
export class KnownDatabases {
  private readonly generations = new Map<string, number | undefined>();

  /** Records a sighting; true when it carries a new generation of a Database seen before. */
  see(key: string, generation: number | undefined): boolean {
    const previous = this.generations.get(key);
    if (generation !== undefined) this.generations.set(key, generation);
    else if (!this.generations.has(key)) this.generations.set(key, undefined);
    return generation !== undefined && previous !== undefined && generation !== previous;
  }

  has(key: string): boolean {
    return this.generations.has(key);
  }

  delete(key: string): void {
    this.generations.delete(key);
  }

  keys(): string[] {
    return [...this.generations.keys()];
  }

  get size(): number {
    return this.generations.size;
  }
}
