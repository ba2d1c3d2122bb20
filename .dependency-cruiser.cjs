/** The layers of the hexagon (style.md), checked by `npm test`. */

module.exports = {
  forbidden: [
    { name: "no-circular", severity: "error", comment: "A type lives with its producer: no file imports its own caller.", from: {}, to: { circular: true } },
    { name: "domain-is-pure", severity: "error", comment: "The domain imports only the domain.", from: { path: "^src/domain/" }, to: { pathNot: "^src/domain/" } },
    { name: "application-not-adapters", severity: "error", comment: "Use cases and ports never reach an adapter.", from: { path: "^src/application/" }, to: { path: "^src/(adapters|cli|config|compose|main)" } },
    { name: "config-imports-no-adapter", severity: "error", from: { path: "^src/config\\.ts$" }, to: { path: "^src/adapters/" } },
    { name: "cli-not-http", severity: "error", comment: "The CLI calls use cases, never the HTTP adapter.", from: { path: "^src/cli/" }, to: { path: "^src/adapters/http/" } },
    {
      name: "adapters-own-their-settings",
      severity: "error",
      comment: "An adapter declares the settings it takes; config produces values of those shapes and the composition root hands them over.",
      from: { path: "^src/adapters/" },
      to: { path: "^src/config\\.ts$" },
    },
    { name: "adapters-not-cli-or-main", severity: "error", from: { path: "^src/adapters/" }, to: { path: "^src/(cli|main|compose)" } },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // swc sees type-only imports too (tests/layers.test.ts checks it); tsPreCompilationDeps would ask
    // for TypeScript's compiler API, which typescript 7 does not offer, and print a warning every run.
    parser: "swc",
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};
