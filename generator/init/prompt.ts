/** The two questions `manifold init` asks on a terminal when no --template was given. */
import { createInterface } from "node:readline";
import { TEMPLATES, type Template } from "./templates/manifests.js";

export interface Answers {
  readonly template: Template;
  readonly name: string;
}

/**
 * Asks for the template (until one of the three, at most 5 tries, then the default) and the name. Lines
 * are read through the interface's iterator, which keeps answers typed (or piped) ahead of their question;
 * an input that ends leaves the defaults.
 */
export async function ask(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, defaults: Answers): Promise<Answers> {
  const rl = createInterface({ input, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  const question = async (text: string): Promise<string> => {
    output.write(text);
    const line = await lines.next();
    return line.done === true ? "" : String(line.value).trim();
  };
  try {
    let template: Template = defaults.template;
    for (let attempt = 0; attempt < 5; attempt++) {
      const answer = await question(`Template (${TEMPLATES.join(", ")}) [${defaults.template}]: `);
      if (answer === "") break;
      if ((TEMPLATES as readonly string[]).includes(answer)) {
        template = answer as Template;
        break;
      }
      output.write(`  ${JSON.stringify(answer)} is not a template\n`);
    }
    const name = await question(`Project name [${defaults.name}]: `);
    return { template, name: name === "" ? defaults.name : name };
  } finally {
    rl.close();
  }
}
