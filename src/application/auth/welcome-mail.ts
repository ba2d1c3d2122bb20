import type { User } from "../../domain/user.ts";
import type { OutgoingMail } from "../ports/mail.ts";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

/**
 * The mail registration sends. It goes to an address nobody has yet shown is theirs, so it holds the
 * shop's words only: a name given at registration (line breaks, a link: anything) would make it
 * anyone's message to anyone, sent from the shop's own domain.
 */
export function welcomeMail(user: Pick<User, "email">, shopUrl: string): OutgoingMail {
  const greeting = "Hi,";
  return {
    to: user.email,
    subject: "Welcome to Storefront",
    text: [
      greeting,
      "",
      "Thanks for creating your Storefront account. Your cart, orders and saved details are now in one place.",
      `Browse the sauces: ${shopUrl}`,
      "",
      "— The Storefront team",
    ].join("\n"),
    html: [
      `<p>${escapeHtml(greeting)}</p>`,
      "<p>Thanks for creating your Storefront account. Your cart, orders and saved details are now in one place.</p>",
      `<p><a href="${escapeHtml(shopUrl)}">Browse the sauces</a></p>`,
      "<p>— The Storefront team</p>",
    ].join("\n"),
  };
}
