/** The two questions `manifold init` asks on a terminal when no --template was given. */
import { createInterface } from "node:readline/promises";
import { TEMPLATES, type Template } from "./templates/manifests.js";

export interface Answers {
  readonly template: Template;
  readonly name: string;
}

/** Asks for the template (until one of the three, at most 5 tries, then the default) and the name. */
export async function ask(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, defaults: Answers): Promise<Answers> {
  const rl = createInterface({ input, output });
  try {
    let template: Template = defaults.template;
    for (let attempt = 0; attempt < 5; attempt++) {
      const answer = (await rl.question(`Template (${TEMPLATES.join(", ")}) [${defaults.template}]: `)).trim();
      if (answer === "") break;
      if ((TEMPLATES as readonly string[]).includes(answer)) {
        template = answer as Template;
        break;
      }
      output.write(`  ${JSON.stringify(answer)} is not a template\n`);
    }
    const name = (await rl.question(`Project name [${defaults.name}]: `)).trim();
    return { template, name: name === "" ? defaults.name : name };
  } finally {
    rl.close();
  }
}
