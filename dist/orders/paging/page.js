"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.buildPage = buildPage;
function buildPage(elements, totalElementCount, currentPage, size) {
    const totalPages = Math.ceil(totalElementCount / size);
    return {
        totalPages,
        totalElementCount,
        currentPage,
        currentElementCount: elements.length,
        perPageNumber: size,
        firstPage: currentPage === 1,
        lastPage: currentPage >= totalPages,
        hasNextPage: currentPage < totalPages,
        hasPrevious: currentPage > 1,
        elements,
    };
}
//# sourceMappingURL=page.js.map