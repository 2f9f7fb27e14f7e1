// The `vitest-tool-evals/ai-sdk` entry: the Vercel AI SDK (`ai` v7, an optional peer, loaded only when a task runs)
// as describeEval tasks. See docs/writing-evals.md, "Testing your app".
export {
  aiSdkTask,
  fromGenerateText,
  modelMessages,
  type AiSdkTaskOptions,
  type FromGenerateTextOptions,
  type GenerateTextLike,
  type GenerateTextStep,
  type StepCost,
} from './eval/ai-sdk.js'
export type {
  EvalTask,
  TaskAssistantMessage,
  TaskCall,
  TaskContext,
  TaskOutput,
  TaskStep,
  TaskText,
  TaskTrajectory,
  TaskUsage,
} from './eval/task.js'
