/**
 * Formats generated TypeScript and proves it parses. ts-morph is heavy, so it is loaded here, on the
 * gen path only, never by `--help` or `validate`. A syntax error in emitted code is a generator bug
 * (manifest text is escaped before it gets here), so it fails loudly instead of writing the file.
 */
export async function formatTypeScript(files: ReadonlyMap<string, string>): Promise<Map<string, string>> {
  const { Project, ts } = await import("ts-morph");
  const project = new Project({ useInMemoryFileSystem: true, compilerOptions: { target: ts.ScriptTarget.ES2022 } });
  const out = new Map<string, string>();
  for (const [path, text] of files) {
    const source = project.createSourceFile(`/${path}`, text);
    const syntax = project.getProgram().compilerObject.getSyntacticDiagnostics(source.compilerNode);
    if (syntax.length > 0) {
      const first = ts.flattenDiagnosticMessageText(syntax[0]!.messageText, " ");
      throw new Error(`internal: generated ${path} does not parse (${first}); please report this manifest`);
    }
    source.formatText({ indentSize: 2, convertTabsToSpaces: true, ensureNewLineAtEndOfFile: true });
    out.set(path, source.getFullText());
  }
  return out;
}
