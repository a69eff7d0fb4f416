/** The targets of an RFC 8288 `Link` header as the service writes it, by relation (`first`, `prev`, `next`, `last`). */
export type Links = Partial<Record<'first' | 'prev' | 'next' | 'last', string>>;

export const linksOf = (header: string | undefined): Links =>
  Object.fromEntries(
    (header ?? '')
      .split(', ')
      .filter(Boolean)
      .map((part) => {
        const [, target, rel] = /^<([^>]+)>; rel="(\w+)"$/.exec(part) ?? [];
        return [rel, target];
      }),
  );
