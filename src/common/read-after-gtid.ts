/**
 * docs/API.md §19: the request header in which a client hands back the position of a write it was told of (the GTID
 * of its commit), so that the page reflects at least that write. A name of its own: `X-` names are what RFC 6648 asks
 * new headers not to take.
 */
export const READ_AFTER_GTID_HEADER = 'Read-After-Gtid';
