"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
//# sourceMappingURL=list-orders-query.js.map