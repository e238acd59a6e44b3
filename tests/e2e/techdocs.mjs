// Backstage TechDocs' reader and search collator, outside a Backstage app, for
// tests/e2e/test_techdocs.py. The packages come from $MEMSITE_TECHDOCS_NPM (.ci/run installs
// them, pinned):
//
//   node techdocs.mjs sanitize PAGE.html   the page as TechDocs' reader sanitises it (and
//                                          then removes MkDocs' header)
//   node techdocs.mjs collate SITE NAME    the search documents Backstage's TechDocs collator
//                                          makes of SITE, published for component NAME
//
// sanitize runs the reader's own DOMPurify hooks (the files of @backstage/plugin-techdocs
// 1.20.0, dist/reader/transformers/html/hooks) with the options its transformer.esm.js passes
// to DOMPurify.sanitize (no allowed iframe hosts, no custom elements, no extra protocols), in
// jsdom. That transformer itself is a React hook (useApi, useMemo), so it cannot run here.
// collate runs the real DefaultTechDocsCollatorFactory of
// @backstage/plugin-search-backend-module-techdocs against a local server that serves SITE
// where Backstage's techdocs backend serves a published site.
import { createRequire } from "node:module";
import { readFileSync, existsSync } from "node:fs";
import { createServer } from "node:http";
import { join, resolve, normalize } from "node:path";
import { pathToFileURL } from "node:url";

const npm = process.env.MEMSITE_TECHDOCS_NPM;
if (!npm) throw new Error("set MEMSITE_TECHDOCS_NPM to the folder .ci/run installs into");
const require = createRequire(join(resolve(npm), "package.json"));

async function sanitize(file) {
  const { JSDOM } = require("jsdom");
  const createDOMPurify = require("dompurify");
  const window = new JSDOM("").window;
  globalThis.Node = window.Node; // the hooks' isElement reads the global Node
  const hooks = join(resolve(npm), "plugin-techdocs/package/dist/reader/transformers/html/hooks");
  const load = async (name) => import(pathToFileURL(join(hooks, name)).href);
  const { removeUnsafeLinks } = await load("links.esm.js");
  const { removeUnsafeMetaTags } = await load("metatags.esm.js");
  const { removeRestrictedAttributes } = await load("attributes.esm.js");
  const purify = createDOMPurify(window);
  purify.addHook("beforeSanitizeElements", removeUnsafeLinks);
  purify.addHook("uponSanitizeElement", removeUnsafeMetaTags);
  purify.addHook("uponSanitizeAttribute", removeRestrictedAttributes);
  const protocols = ["callto", "cid", "ftp", "ftps", "http", "https", "mailto", "matrix", "sms", "tel", "xmpp"];
  const page = new JSDOM(readFileSync(file, "utf8")).window.document;
  const clean = purify.sanitize(page.documentElement.outerHTML, {
    ADD_TAGS: ["link", "meta"],
    FORBID_TAGS: ["style"],
    ADD_ATTR: ["http-equiv", "content", "dominant-baseline"],
    WHOLE_DOCUMENT: true,
    RETURN_DOM: true,
    ALLOWED_URI_REGEXP: new RegExp(`^(?:${protocols.join("|")}:|[^a-z]|[a-z+.-]+(?:[^a-z+.\\-:]|$))`, "i"),
    CUSTOM_ELEMENT_HANDLING: { tagNameCheck: undefined, attributeNameCheck: undefined },
  });
  // Then what the reader's transformers remove of MkDocs' page before showing it
  // (removeMkdocsHeader, simplifyMkdocsFooter: Backstage shows its own header).
  for (const part of clean.querySelectorAll(".md-header, .md-footer .md-copyright, .md-footer-copyright")) {
    part.remove();
  }
  process.stdout.write("<!doctype html>\n" + clean.outerHTML);
}

async function collate(site, name) {
  const module = "@backstage/plugin-search-backend-module-techdocs";
  const main = require.resolve(`${module}/package.json`);
  // The factory is not among the package's exports in 0.4.x: required by its file.
  const { DefaultTechDocsCollatorFactory } = require(
    join(main, "..", "dist/collators/DefaultTechDocsCollatorFactory.cjs.js"),
  );
  const prefix = `/api/techdocs/static/docs/default/component/${name.toLowerCase()}/`;
  const root = resolve(site);
  const server = createServer((req, res) => {
    const path = decodeURIComponent(req.url.split("?")[0]);
    const file = normalize(join(root, path.slice(prefix.length)));
    if (!path.startsWith(prefix) || !file.startsWith(root) || !existsSync(file)) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader("content-type", "application/json");
    res.end(readFileSync(file));
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  const base = `http://127.0.0.1:${server.address().port}/api`;
  const problems = [];
  const logger = {
    child() { return this; },
    debug: (message) => problems.push(String(message)),
    info() {}, warn: (message) => problems.push(String(message)), error: (message) => problems.push(String(message)),
  };
  const entity = {
    apiVersion: "backstage.io/v1alpha1",
    kind: "Component",
    metadata: { name, namespace: "default", annotations: { "backstage.io/techdocs-ref": "dir:." } },
    spec: { type: "service", lifecycle: "production", owner: "team-a" },
  };
  const factory = new DefaultTechDocsCollatorFactory({
    discovery: { getBaseUrl: async (id) => `${base}/${id}`, getExternalBaseUrl: async (id) => `${base}/${id}` },
    auth: {
      getOwnServiceCredentials: async () => ({ principal: { type: "service", subject: "test" } }),
      getPluginRequestToken: async () => ({ token: "test" }),
    },
    catalog: { queryEntities: async () => ({ items: [entity], pageInfo: {} }) },
    logger,
  });
  const docs = [];
  for await (const doc of await factory.getCollator()) docs.push(doc);
  server.close();
  process.stdout.write(JSON.stringify({ docs, problems }));
}

const [command, ...args] = process.argv.slice(2);
if (command === "sanitize") await sanitize(args[0]);
else if (command === "collate") await collate(args[0], args[1]);
else throw new Error(`unknown command ${command}: sanitize PAGE or collate SITE NAME`);
