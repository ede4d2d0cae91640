/** What every command writes through, and the diagnostic formats: shared by the CLI and its commands. */
export type Format = "pretty" | "json" | "github";

export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly color: boolean;
}
