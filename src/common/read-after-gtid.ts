/** The header in which a client hands back the GTID of its write, so that the page reflects at least that write. */
export const READ_AFTER_GTID_HEADER = 'Read-After-Gtid';
