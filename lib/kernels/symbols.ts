/** A growing string -> dense id table, used to hand strings to native code once each. */
export class SymbolTable {
  readonly names: string[] = [];
  private readonly ids = new Map<string, number>();

  id(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.names.length;
      this.names.push(s);
      this.ids.set(s, id);
    }
    return id;
  }
}

/** A growable Int32Array. */
export class IntBuffer {
  private data: Int32Array<ArrayBuffer> = new Int32Array(1024);
  length = 0;

  push(v: number): void {
    if (this.length === this.data.length) {
      const bigger = new Int32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = v;
  }

  toArray(): Int32Array<ArrayBuffer> {
    return this.data.slice(0, this.length);
  }
}
