/**
 * The manifest loader as gen runs it: the manifest layer takes the agent feature list as a parameter,
 * and these pass the shipped list, so a test loads manifests exactly as `manifold gen` does.
 */
import { AGENT_FEATURES } from "../../runtime/agent/features.js";
import * as manifest from "../../runtime/manifest/index.js";
import type { LoadComponentOptions, ManifestSource, Project } from "../../runtime/manifest/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";

export const loadSources = (sources: readonly ManifestSource[]): Project => manifest.loadSources(sources, AGENT_FEATURES);

export const loadManifestText = (file: string, text: string): Project => manifest.loadManifestText(file, text, AGENT_FEATURES);

export const loadComponentFile = (path: string, options: Omit<LoadComponentOptions, "features"> = {}): Promise<ComponentSpec> =>
  manifest.loadComponentFile(path, { ...options, features: AGENT_FEATURES });

export const notGenerated = (project: Project, features: Parameters<typeof manifest.notGenerated>[1] = AGENT_FEATURES) =>
  manifest.notGenerated(project, features);
