import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ProblemDetailsFilter, UnavailableLogThrottle } from './problem-details.filter';

/** Every error the application raises is answered through this one filter (docs/API.md §6). */
@Module({
  providers: [UnavailableLogThrottle, { provide: APP_FILTER, useClass: ProblemDetailsFilter }],
})
export class ProblemsModule {}
