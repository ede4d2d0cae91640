/**
 * The file system as the manifest layer's features read it (`ManifestFiles`): the files a manifest
 * names beside it, by the paths diagnostics show (relative to `cwd`, `/` separators). Synchronous
 * because the loader is; what it reads is bounded by the caller (the skill format's limits).
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync } from "node:fs";
import { resolve } from "node:path";
import type { FileInfo, ManifestFiles } from "./feature.js";
import { compareText } from "./values.js";

export function createManifestFiles(cwd: string = process.cwd()): ManifestFiles {
  const at = (path: string) => resolve(cwd, path);
  return {
    stat(path) {
      let info: ReturnType<typeof lstatSync>;
      try {
        info = lstatSync(at(path));
      } catch (error) {
        if (error instanceof Error && "code" in error && (error.code === "ENOENT" || error.code === "ENOTDIR")) return undefined;
        throw error;
      }
      const kind: FileInfo["kind"] = info.isSymbolicLink() ? "link" : info.isDirectory() ? "folder" : info.isFile() ? "file" : "other";
      return { kind, bytes: info.size };
    },
    list(path) {
      return readdirSync(at(path)).sort(compareText);
    },
    read(path, maxBytes) {
      // O_NONBLOCK and O_NOFOLLOW: whatever replaced the file since its stat (a FIFO, a link) is not waited on or followed.
      const fd = openSync(at(path), constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
      try {
        if (!fstatSync(fd).isFile()) throw new Error("not a regular file");
        const buffer = Buffer.alloc(maxBytes + 1);
        let length = 0;
        while (length < buffer.length) {
          const read = readSync(fd, buffer, length, buffer.length - length, null);
          if (read === 0) break;
          length += read;
        }
        return buffer.subarray(0, length);
      } finally {
        closeSync(fd);
      }
    },
  };
}
