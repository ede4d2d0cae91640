/**
 * The TypeScript formatter's view of generated modules, and proof that they parse. gen does not run
 * this: loading ts-morph alone costs about 1.5 s, and the printer already emits formatted code, which
 * the tests hold it to by requiring formatting to be a no-op on every emitted module.
 */
export async function formatTypeScript(files: ReadonlyMap<string, string>): Promise<Map<string, string>> {
  const { Project, ts } = await import("ts-morph");
  const project = new Project({ useInMemoryFileSystem: true, compilerOptions: { target: ts.ScriptTarget.ES2022 } });
  const out = new Map<string, string>();
  for (const [path, text] of files) {
    const source = project.createSourceFile(`/${path}`, text);
    const syntax = ts.transpileModule(text, { reportDiagnostics: true, compilerOptions: { target: ts.ScriptTarget.ES2022 } }).diagnostics ?? [];
    if (syntax.length > 0) {
      throw new Error(`generated ${path} does not parse: ${ts.flattenDiagnosticMessageText(syntax[0]!.messageText, " ")}`);
    }
    source.formatText({ indentSize: 2, convertTabsToSpaces: true, ensureNewLineAtEndOfFile: true });
    out.set(path, source.getFullText());
  }
  return out;
}
