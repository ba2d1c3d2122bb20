import { expect, test } from "bun:test";
import { signedInAs } from "../support/accounts.ts";
import { createTestApp } from "../support/http.ts";

// A name may arrive decomposed (`e` and a combining accent, as some keyboards and copied file names
// give it) or composed (`é`): the shop keeps it composed (NFC), and searches the same way, so each
// finds the other (found by an attack: `Rene\u0301e Mu\u0308ller` was found by no search).

const decomposed = (text: string) => text.normalize("NFD");

test("a person's name typed decomposed is kept composed, and staff find it by either form", async () => {
  const t = createTestApp();
  const staff = await signedInAs(t, "STAFF");
  const registered = await t.call("POST", "/api/auth/register", {
    body: { email: "renee@example.com", password: "a long enough password", name: decomposed("Renée Müller") },
  });
  expect(registered.status).toBe(201);
  expect(registered.body.user.name).toBe("Renée Müller");
  for (const q of ["Renée", decomposed("Müller")]) {
    const found = await t.call("GET", `/api/admin/users?q=${encodeURIComponent(q)}`, { headers: staff.headers });
    expect(found.body.data.map((a: { email: string }) => a.email)).toEqual(["renee@example.com"]);
  }
});

test("a product named and described decomposed is kept composed, and the catalog's search finds it by either form", async () => {
  const t = createTestApp();
  const staff = await signedInAs(t, "STAFF");
  const created = await t.call("POST", "/api/products", {
    body: {
      name: decomposed("Crème Brûlée Heat"),
      description: decomposed("A crème of habanero"),
      sku: "CBH-1",
      price: 9.99,
      featuredImage: "https://img.example.com/cbh.jpg",
      heatLevel: 2,
      inventory: 5,
    },
    headers: staff.headers,
  });
  expect(created.status).toBe(201);
  expect(created.body.data).toMatchObject({ name: "Crème Brûlée Heat", description: "A crème of habanero" });
  for (const search of ["brûlée", decomposed("crème")]) {
    const found = await t.call("GET", `/api/products?search=${encodeURIComponent(search)}`);
    expect(found.body.data.map((p: { sku: string }) => p.sku)).toEqual(["CBH-1"]);
  }
});
