import type { Kysely } from "kysely";

// Frozen: the spec's default permissions by role as of 2026-11-22. Later changes go in new migrations.

const ALL = [
  "orders:read",
  "orders:write",
  "orders:export",
  "orders:import",
  "orders:modify",
  "orders:print-labels",
  "products:read",
  "products:write",
  "products:bulk",
  "products:export",
  "products:import",
  "users:read",
  "users:write",
  "users:impersonate",
  "users:export",
  "content:read",
  "content:write",
  "content:publish",
  "analytics:read",
  "analytics:export",
  "settings:read",
  "settings:write",
  "financials:read",
  "financials:refunds",
  "financials:export",
  "messaging:read",
  "messaging:reply",
  "messaging:assign",
  "gift-certificates:read",
  "gift-certificates:write",
  "gift-certificates:import",
  "gift-certificates:export",
  "fundraiser:view-dashboard",
  "fundraiser:edit-page",
  "fundraiser:upload-assets",
  "fundraiser:view-analytics",
  "locations:read",
  "events:read",
  "seo:read",
  "ai-analytics:view",
];

const STAFF = [
  "orders:read",
  "orders:write",
  "orders:export",
  "orders:import",
  "orders:modify",
  "orders:print-labels",
  "products:read",
  "products:write",
  "products:bulk",
  "products:import",
  "users:read",
  "content:read",
  "content:write",
  "analytics:read",
  "messaging:read",
  "messaging:reply",
  "messaging:assign",
  "gift-certificates:read",
  "gift-certificates:write",
  "locations:read",
  "events:read",
  "seo:read",
  "ai-analytics:view",
];

const FUNDRAISER = ["fundraiser:view-dashboard", "fundraiser:edit-page", "fundraiser:upload-assets", "fundraiser:view-analytics"];

export async function up(db: Kysely<any>): Promise<void> {
  const rows = [
    ...ALL.map((permission) => ({ role: "ADMIN", permission })),
    ...ALL.map((permission) => ({ role: "DEVELOPER", permission })),
    ...STAFF.map((permission) => ({ role: "STAFF", permission })),
    ...FUNDRAISER.map((permission) => ({ role: "FUNDRAISER", permission })),
  ];
  await db
    .insertInto("role_permissions")
    .values(rows)
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom("role_permissions").execute();
}
