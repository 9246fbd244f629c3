/** A camera's snapshot URL split into what is fetched and the HTTP Basic credentials it carried. */
export type CameraUrl = { readonly ok: true; readonly url: string; readonly authorization: string | undefined } | { readonly ok: false; readonly reason: string };

/**
 * fetch refuses a URL with user:password in it; IP cameras take HTTP Basic
 * with them instead. The URL's user and password are percent-encoded (RFC
 * 3986 userinfo), so `50%off` is not a password but a malformed escape —
 * it must be written `50%25off`. Checked when the config is loaded, naming
 * the camera; a reason never contains the password (nor the user name).
 */
export function cameraUrl(text: string): CameraUrl {
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return { ok: false, reason: "is not a URL" };
  }
  let user: string;
  let password: string;
  try {
    user = decodeURIComponent(parsed.username);
  } catch {
    return { ok: false, reason: "has a user name with a % that does not start an escape (%XX): write a literal % as %25" };
  }
  try {
    password = decodeURIComponent(parsed.password);
  } catch {
    return { ok: false, reason: "has a password with a % that does not start an escape (%XX): write a literal % as %25" };
  }
  const authorization = user !== "" || password !== "" ? `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` : undefined;
  parsed.username = "";
  parsed.password = "";
  return { ok: true, url: parsed.toString(), authorization };
}
