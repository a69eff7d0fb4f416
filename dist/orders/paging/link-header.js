"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.buildLinkHeader = buildLinkHeader;
const encode = (text) => encodeURIComponent(text).replace(/%2C/g, ',');
function buildLinkHeader(path, parameters, currentPage, totalPages) {
    const rest = parameters.map(([name, value]) => `&${encode(name)}=${encode(value)}`).join('');
    const link = (page, rel) => `<${path}?page=${page}${rest}>; rel="${rel}"`;
    const links = [];
    if (totalPages >= 1)
        links.push(link(1, 'first'));
    if (currentPage > 1)
        links.push(link(currentPage - 1, 'prev'));
    if (currentPage < totalPages)
        links.push(link(currentPage + 1, 'next'));
    if (totalPages >= 1)
        links.push(link(totalPages, 'last'));
    return links.length > 0 ? links.join(', ') : undefined;
}
//# sourceMappingURL=link-header.js.map