// Who is calling: what the gate (src/http/authenticate.ts) verified of a request, handed to every handler as
// `req.auth`. Declared here, below the HTTP layer, so handlers never import http.
import type { ApiKeyNetwork, ApiKeyType } from '../domain/apiKeys/keyFormat';
import type { Audience } from '../domain/sessions/accessTokens';

/** The key a request was authenticated with; never holds the key itself. */
export interface AuthenticatedKey {
  appId: string;
  keyId: string;
  type: ApiKeyType;
  /** The network of the request, fixed by the key's prefix. */
  network: ApiKeyNetwork;
}

/** The operator behind a verified Dashboard session (operatorSession + dpopProof). */
export interface AuthenticatedOperator {
  operatorId: string;
  /** The session (refresh-token family) the access token belongs to. */
  sessionId: string;
}

/** The end user behind a verified SDK API session (userSession + dpopProof). */
export interface AuthenticatedUser {
  userId: string;
  sessionId: string;
  appId: string;
}

export interface AuthContext {
  /** The operator of a Dashboard API request, once the access token and its DPoP proof are verified. */
  operator?: AuthenticatedOperator;
  /** The end user of an SDK API request, once the access token and its DPoP proof are verified. */
  user?: AuthenticatedUser;
  /** The app key the request presented in x-service-api-key, looked up and checked. */
  apiKey?: AuthenticatedKey;
  /** The verified access token's DPoP key thumbprint: the request's proof must be signed by that key. */
  tokenJkt?: string;
  /** The access token itself, for the proof's `ath` (never logged). */
  accessToken?: string;
  /** The thumbprint of the key that signed the request's verified DPoP proof (sign-in binds new tokens to it). */
  dpopJkt?: string;
  /** Set while the gate runs: the session of a verified token, whose liveness is checked last. */
  sessionToCheck?: { sessionId: string; audience: Audience; subjectId: string };
}
