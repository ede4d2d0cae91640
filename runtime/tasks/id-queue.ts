/** A FIFO of ids with O(1) push, shift and (for release) unshift. */
export class IdQueue {
  private items: (string | undefined)[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(id: string): void {
    this.items.push(id);
  }

  unshift(id: string): void {
    if (this.head > 0) this.items[--this.head] = id;
    else this.items.unshift(id);
  }

  shift(): string | undefined {
    if (this.head >= this.items.length) return undefined;
    const id = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head > 1_024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return id;
  }
}
