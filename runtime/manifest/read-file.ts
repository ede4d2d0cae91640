import { constants } from "node:fs";
import { lstat, open } from "node:fs/promises";
import type { DiagnosticCode } from "./codes.js";
import { START, type Position } from "./diagnostics/create.js";

/** 1 MiB: far beyond any real manifest, small enough that a stray data file cannot stall the loader. */
export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

export type ReadResult =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly code: DiagnosticCode; readonly position: Position; readonly message: string };

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;
}

/** Reads one manifest as UTF-8 text. Never throws: every failure is a result to report. */
export async function readManifestFile(path: string, maxBytes: number): Promise<ReadResult> {
  let bytes: Buffer;
  try {
    // O_NONBLOCK: opening a FIFO named x.yaml would otherwise wait forever for a writer. The handle's
    // own stat then refuses anything that is not a regular file.
    const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const info = await handle.stat();
      if (!info.isFile()) return { ok: false, code: "MF1003", position: START, message: "cannot read the file: it is not a regular file" };
      if (info.size > maxBytes) {
        return { ok: false, code: "MF1004", position: START, message: `file is ${formatBytes(info.size)}; a manifest may be at most ${formatBytes(maxBytes)}` };
      }
      bytes = await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch (error) {
    const reason = (await isDanglingLink(path)) ? "it is a link to something that does not exist" : describeFsError(error);
    return { ok: false, code: "MF1003", position: START, message: `cannot read the file: ${reason}` };
  }
  // The size can grow between stat and read; the limit holds for what was actually read.
  if (bytes.length > maxBytes) {
    return { ok: false, code: "MF1004", position: START, message: `file is ${formatBytes(bytes.length)}; a manifest may be at most ${formatBytes(maxBytes)}` };
  }
  return decodeUtf8(bytes);
}

async function isDanglingLink(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isSymbolicLink();
  } catch {
    return false;
  }
}

export function decodeUtf8(bytes: Uint8Array): ReadResult {
  try {
    // TextDecoder drops a leading BOM, so offsets in the text match what editors show.
    return { ok: true, text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    const bad = firstInvalidByte(bytes);
    const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
    const hint = utf16 ? " (it looks like UTF-16; save it as UTF-8)" : "";
    return {
      ok: false,
      code: "MF1005",
      position: positionOfByte(bytes, bad),
      message: `the file is not valid UTF-8: byte 0x${(bytes[bad] ?? 0).toString(16).padStart(2, "0")} at offset ${bad}${hint}`,
    };
  }
}

function positionOfByte(bytes: Uint8Array, offset: number): Position {
  // lastIndexOf reads a negative start as "from the end", so offset 0 is its own case.
  const lineStart = offset === 0 ? 0 : bytes.lastIndexOf(0x0a, offset - 1) + 1;
  let line = 1;
  for (let i = 0; i < lineStart; i++) if (bytes[i] === 0x0a) line++;
  // Everything before `offset` is valid UTF-8, so it decodes; columns count characters as editors do.
  const column = new TextDecoder("utf-8").decode(bytes.subarray(lineStart, offset)).length + 1;
  return { line, column };
}

/** Offset of the first byte that breaks UTF-8 (overlong forms and surrogates included). */
function firstInvalidByte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const [length, min, max] =
      b < 0x80
        ? [1, 0, 0]
        : b >= 0xc2 && b <= 0xdf
          ? [2, 0x80, 0xbf]
          : b === 0xe0
            ? [3, 0xa0, 0xbf]
            : b === 0xed
              ? [3, 0x80, 0x9f]
              : b >= 0xe1 && b <= 0xef
                ? [3, 0x80, 0xbf]
                : b === 0xf0
                  ? [4, 0x90, 0xbf]
                  : b >= 0xf1 && b <= 0xf3
                    ? [4, 0x80, 0xbf]
                    : b === 0xf4
                      ? [4, 0x80, 0x8f]
                      : [0, 0, 0];
    if (length === 0) return i;
    for (let k = 1; k < length; k++) {
      const c = bytes[i + k];
      const [lo, hi] = k === 1 ? [min, max] : [0x80, 0xbf];
      if (c === undefined || c < lo || c > hi) return i;
    }
    i += length;
  }
  return i;
}

/** A short reason without the absolute path Node puts in its messages. */
export function describeFsError(error: unknown): string {
  const code = error instanceof Error && "code" in error ? String(error.code) : "";
  switch (code) {
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "ENOENT":
      return "it does not exist";
    case "EISDIR":
      return "it is a folder";
    case "ELOOP":
      return "too many levels of links";
    default:
      return code === "" ? "reading failed" : `reading failed (${code})`;
  }
}
