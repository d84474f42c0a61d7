/** A one-line progress bar on stderr (redrawn in place on a terminal, a line per step otherwise). */
export class ProgressBar {
  private last = 0;
  private lastPhase = '';
  private lastPercent = -1;
  private readonly started = Date.now();
  private readonly tty = process.stderr.isTTY === true;

  update(phase: string, done: number, total: number): void {
    const now = Date.now();
    const percent = total > 0 ? Math.min(100, Math.floor((done / total) * 100)) : 100;
    const changed = phase !== this.lastPhase;
    if (this.tty) {
      if (!changed && now - this.last < 100 && done < total) return;
      const width = 30;
      const filled = Math.round((percent / 100) * width);
      const bar = `${'='.repeat(filled)}${filled < width ? '>' : ''}${' '.repeat(Math.max(0, width - filled - 1))}`;
      const line = `[${bar}] ${String(percent).padStart(3)}% ${phase.padEnd(12)} ${done.toLocaleString('en')}/${total.toLocaleString('en')}  ${((now - this.started) / 1000).toFixed(1)}s`;
      process.stderr.write(`${changed && this.lastPhase ? '\n' : '\r'}${line}`);
    } else {
      const step = Math.floor(percent / 10);
      if (!changed && step === Math.floor(this.lastPercent / 10)) return;
      process.stderr.write(`${phase} ${percent}% (${done}/${total}) ${((now - this.started) / 1000).toFixed(1)}s\n`);
    }
    this.last = now;
    this.lastPhase = phase;
    this.lastPercent = percent;
  }

  finish(): void {
    if (this.tty && this.lastPhase) process.stderr.write('\n');
  }
}
