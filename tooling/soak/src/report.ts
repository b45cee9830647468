// The soak's checks and report lines: each check passes or fails with a detail; the last line counts them.

/** One check of the soak. */
export interface Check {
  name: string;
  passed: boolean;
  detail: string;
}

/** Collects checks and prints them; `summary()` is the final `soak: N passed, N failed` line. */
export class Report {
  readonly checks: Check[] = [];

  check(name: string, passed: boolean, detail = ''): void {
    this.checks.push({ name, passed, detail });
    console.log(`${passed ? 'PASS' : 'FAIL'} ${name}${detail === '' ? '' : `: ${detail}`}`);
  }

  line(text: string): void {
    console.log(text);
  }

  failed(): number {
    return this.checks.filter((check) => !check.passed).length;
  }

  summary(): string {
    return `soak: ${this.checks.length - this.failed()} passed, ${this.failed()} failed`;
  }
}
