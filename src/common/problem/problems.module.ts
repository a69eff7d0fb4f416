import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import {
  PROBLEM_TRANSLATORS,
  ProblemDetailsFilter,
  UnavailableLogThrottle,
  type ProblemTranslator,
} from './problem-details.filter';

/** Every error the application raises is answered through this one filter. */
@Module({})
export class ProblemsModule {
  /** `translators`: what the lower layers' own errors mean as problems, given by the application that composes them. */
  static forRoot(translators: readonly ProblemTranslator[]): DynamicModule {
    return {
      module: ProblemsModule,
      providers: [
        UnavailableLogThrottle,
        { provide: PROBLEM_TRANSLATORS, useValue: translators },
        { provide: APP_FILTER, useClass: ProblemDetailsFilter },
      ],
    };
  }
}
