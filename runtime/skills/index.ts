/**
 * What other folders use of the skills feature (the dashboard, embedding code): the skill registry
 * (its port, adapters and bounds) and the admin API's names. The feature's descriptor is
 * `feature.ts`, its running part `extension.ts`; neither is loaded from here.
 */
export * from "./store/index.js";
export { SKILL_ADMINS_ENV, skillAdminsOf } from "./admin.js";
export { adminSpanName, SKILLS_PATH } from "./routes.js";
